// The fleet is the controller's (GET/PUT/DELETE /bff/v1/displays: every operator and browser
// sees the same displays, docs/controller.md "The fleet"). This browser also keeps, in
// localStorage, the API keys it was given for the displays it paired (the proxy passes
// Authorization through), and the registered displays picked here without a key of its own
// (`viaController`: the proxy reaches them by id with the key the controller stores, api.js).
// With sign-in on, each user has their own local list (namespaced by username).
import { bff } from "./api.js";

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

/** Pick a display of the controller's fleet that holds its key (`item.apiKeyConfigured`),
 * without a key in this browser: the pages reach it by id through the proxy. */
export function useRegistered(item) {
  saveDisplay({ id: item.id, name: item.name, url: item.baseUrl, viaController: true });
  setCurrent(item.id);
}

/** A short slug of a name, used as the display's id here and as a backup target's displayId. */
export function slug(text) {
  const s = String(text).toLowerCase().normalize("NFKD").replace(/[^a-z0-9]+/g, "-").replace(/^-+|-+$/g, "");
  return s.slice(0, 60) || "display";
}

// -- the controller's fleet -----------------------------------------------------------------

/** Every display of the fleet, with its last polled status. */
export async function fleetDisplays() { return (await bff.get("/displays")).items; }

/** The controller's fleet with its sync groups: `{items, syncGroups}` (docs/controller.md "Displays in step"). */
export async function fleetListing() { return bff.get("/displays"); }

/** Register (or update) `display` ({id, name, url, apiKey?, group?}) in the controller's fleet. */
export function registerDisplay(display) {
  const body = { name: display.name, baseUrl: display.url };
  if (display.apiKey) body.apiKey = display.apiKey;
  if (display.group) body.group = display.group;
  return bff.put(`/displays/${encodeURIComponent(display.id)}`, body);
}

export function unregisterDisplay(id) { return bff.del(`/displays/${encodeURIComponent(id)}`); }

// The one-time offer to move the displays this browser held into the controller.
function offeredKey() { return `${namespace}.moved-to-controller`; }
export function moveOffered() { return localStorage.getItem(offeredKey()) !== null; }
export function markMoveOffered(answer) { localStorage.setItem(offeredKey(), answer); }
