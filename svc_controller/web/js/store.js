// The displays this browser manages, with their API keys, in localStorage.
// Why the browser and not the controller: the proxy passes Authorization through by
// design and the controller keeps no display registry (docs/webapp.md). With sign-in on,
// each user has their own list (the key is namespaced by username).

let namespace = "svc-controller.displays";

export function setUser(username) {
  namespace = username ? `svc-controller.displays.${username}` : "svc-controller.displays";
}

function read() {
  try {
    const data = JSON.parse(localStorage.getItem(namespace) || "{}");
    return { displays: Array.isArray(data.displays) ? data.displays : [], current: data.current || null };
  } catch {
    return { displays: [], current: null };
  }
}

function write(data) { localStorage.setItem(namespace, JSON.stringify(data)); }

export function listDisplays() { return read().displays; }

export function getDisplay(id) { return read().displays.find((d) => d.id === id) || null; }

export function saveDisplay(display) {
  const data = read();
  const i = data.displays.findIndex((d) => d.id === display.id);
  if (i >= 0) data.displays[i] = display; else data.displays.push(display);
  if (!data.current) data.current = display.id;
  write(data);
}

export function removeDisplay(id) {
  const data = read();
  data.displays = data.displays.filter((d) => d.id !== id);
  if (data.current === id) data.current = data.displays[0] ? data.displays[0].id : null;
  write(data);
}

export function currentDisplay() {
  const data = read();
  return data.displays.find((d) => d.id === data.current) || data.displays[0] || null;
}

export function setCurrent(id) {
  const data = read();
  data.current = id;
  write(data);
}

/** A short slug of a name, used as the display's id here and as a backup target's displayId. */
export function slug(text) {
  const s = String(text).toLowerCase().normalize("NFKD").replace(/[^a-z0-9]+/g, "-").replace(/^-+|-+$/g, "");
  return s.slice(0, 60) || "display";
}
