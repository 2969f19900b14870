// Pieces several pages share.
import { h, notify } from "../dom.js";
import { describeError } from "../api.js";

export function needDisplay(main, title) {
  main.replaceChildren(h("h1", {}, title),
    h("p", {}, "Add a display first: ", h("a", { href: "#/displays" }, "go to Displays"), "."));
}

export function section(title, ...children) {
  return h("section", { class: "card" }, h("h2", {}, title), ...children);
}

/** An on/off switch (a checkbox with role=switch) that calls `onchange(checked)`; reverts on failure. */
export function toggle(label, checked, onchange) {
  const input = h("input", { type: "checkbox", role: "switch", checked, "aria-label": label });
  input.addEventListener("change", async () => {
    input.disabled = true;
    try { await onchange(input.checked); } catch (err) { input.checked = !input.checked; notify(describeError(err), "error"); } finally { input.disabled = false; }
  });
  return input;
}

export function table(headers, rows, caption) {
  // Each cell carries its column's name: on a phone the rows are drawn as small cards.
  for (const row of rows) [...row.children].forEach((cell, i) => { if (headers[i]) cell.dataset.label = headers[i]; });
  return h("div", { class: "table-wrap" }, h("table", { class: "responsive" },
    caption ? h("caption", { class: "sr-only" }, caption) : null,
    h("thead", {}, h("tr", {}, headers.map((t) => h("th", { scope: "col" }, t)))),
    h("tbody", {}, rows)));
}
