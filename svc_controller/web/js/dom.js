// Tiny DOM helpers: h() builds elements, so no markup is ever built from strings
// (nothing a display returns can inject HTML).

export function h(tag, attrs = {}, ...children) {
  const el = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs || {})) {
    if (value === undefined || value === null || value === false) continue;
    if (name.startsWith("on") && typeof value === "function") el.addEventListener(name.slice(2), value);
    else if (name === "class") el.className = value;
    else if (name === "value" || name === "checked" || name === "selected") el[name] = value;
    else if (name === "dataset") Object.assign(el.dataset, value);
    else el.setAttribute(name, value === true ? "" : String(value));
  }
  append(el, children);
  return el;
}

function append(el, children) {
  for (const child of children.flat(Infinity)) {
    if (child === null || child === undefined || child === false) continue;
    el.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
}

export function replace(el, ...children) {
  el.replaceChildren();
  append(el, children);
  return el;
}

let uid = 0;
export const newId = (prefix = "f") => `${prefix}-${++uid}`;

/** A labelled control: returns {wrap, input, error} with the error element tied by aria-describedby. */
export function field(label, input, { hint, name } = {}) {
  const id = input.id || newId("in");
  input.id = id;
  const errorId = `${id}-error`;
  const error = h("p", { class: "field-error", id: errorId, hidden: true });
  const hintEl = hint ? h("p", { class: "hint", id: `${id}-hint` }, hint) : null;
  input.setAttribute("aria-describedby", [hintEl && `${id}-hint`, errorId].filter(Boolean).join(" "));
  const wrap = h("div", { class: "field", dataset: name ? { field: name } : {} },
    input.type === "checkbox" ? h("label", { for: id, class: "check" }, input, " ", label) : [h("label", { for: id }, label), input],
    hintEl, error);
  return { wrap, input, error };
}

export function setFieldError(f, messages) {
  const list = [].concat(messages || []).filter(Boolean);
  f.error.hidden = list.length === 0;
  f.error.textContent = list.join(" ");
  if (list.length) f.input.setAttribute("aria-invalid", "true");
  else f.input.removeAttribute("aria-invalid");
}

export function button(label, onclick, { kind = "", type = "button", ...rest } = {}) {
  return h("button", { type, class: kind, onclick, ...rest }, label);
}

const statusEl = () => document.getElementById("status");

/** A short message in the live region at the top (errors stay until replaced). */
export function notify(message, kind = "ok") {
  const el = statusEl();
  replace(el, h("p", { class: `note ${kind}` }, message, " ",
    h("button", { type: "button", class: "link", "aria-label": "Dismiss message", onclick: () => replace(el) }, "×")));
  if (kind === "ok") setTimeout(() => { if (el.textContent.startsWith(message)) replace(el); }, 5000);
}

export function clearNotice() { replace(statusEl()); }

/** A modal confirmation (native <dialog>: focus trapped, Escape cancels). Resolves true or false. */
export function confirmDialog(title, text, confirmLabel = "Confirm", danger = true) {
  return new Promise((resolve) => {
    const dialog = h("dialog", { class: "confirm", "aria-labelledby": "confirm-title" },
      h("h2", { id: "confirm-title" }, title), h("p", {}, text),
      h("form", { method: "dialog", class: "actions" },
        h("button", { value: "cancel", class: "secondary" }, "Cancel"),
        h("button", { value: "ok", class: danger ? "danger" : "primary", autofocus: true }, confirmLabel)));
    dialog.addEventListener("close", () => { resolve(dialog.returnValue === "ok"); dialog.remove(); });
    document.body.append(dialog);
    dialog.showModal();
  });
}

export function formatTime(ms) {
  if (ms === null || ms === undefined) return "—";
  return new Date(ms).toLocaleString();
}

export function formatBytes(n) {
  if (n === null || n === undefined) return "—";
  const units = ["B", "KiB", "MiB", "GiB"];
  let i = 0;
  while (n >= 1024 && i < units.length - 1) { n /= 1024; i++; }
  return `${n.toFixed(i ? 1 : 0)} ${units[i]}`;
}
