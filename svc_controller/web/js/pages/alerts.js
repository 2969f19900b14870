// Alerts: raise one with an expiry, dismiss one.
import { displayApi, describeError, ApiError } from "../api.js";
import { h, replace, field, setFieldError, button, notify, formatTime } from "../dom.js";
import { needDisplay, section, table } from "./common.js";

const EXPIRY = [["15 minutes", 15], ["1 hour", 60], ["4 hours", 240], ["1 day", 1440], ["1 week", 10080], ["Never", 0]];

function raiseForm(api, reload) {
  const title = field("Title", h("input", { type: "text", name: "title", maxlength: "200" }));
  const body = field("Text", h("textarea", { name: "body", rows: 3 }));
  const severity = field("Severity", h("select", { name: "severity" }, ["info", "warning", "critical"].map((s) => h("option", { value: s }, s))));
  const expiry = field("Expires after", h("select", { name: "expiry" }, EXPIRY.map(([label, minutes]) => h("option", { value: String(minutes) }, label))));
  expiry.input.value = "60";
  const qr = field("QR code content (optional)", h("input", { type: "text", name: "qr_payload" }));
  const form = h("form", { class: "stack", novalidate: true, "aria-label": "Raise an alert" },
    title.wrap, body.wrap, h("div", { class: "row" }, severity.wrap, expiry.wrap), qr.wrap,
    h("div", { class: "actions" }, h("button", { type: "submit", class: "primary" }, "Raise alert")));
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    setFieldError(title, []);
    if (!title.input.value.trim()) { setFieldError(title, "Give the alert a title."); title.input.focus(); return; }
    const minutes = Number(expiry.input.value);
    const payload = { title: title.input.value.trim(), body: body.input.value, severity: severity.input.value, priority: 50,
      expires_at: minutes ? Date.now() + minutes * 60000 : null };
    if (qr.input.value.trim()) payload.qr_payload = qr.input.value.trim();
    try {
      await api.post("/v1/alerts", payload);
      notify("Alert raised.");
      reload();
    } catch (err) {
      if (err instanceof ApiError && err.code === "validation_failed" && err.details) {
        for (const [k, f] of Object.entries({ title, body, severity, qr_payload: qr, expires_at: expiry })) setFieldError(f, err.details[k]);
      }
      notify(describeError(err), "error");
    }
  });
  return form;
}

export async function render(main, { display }) {
  if (!display) return needDisplay(main, "Alerts");
  const api = displayApi(display);
  const listHolder = h("div", {});
  const reload = async () => {
    try {
      const now = Date.now();
      const items = (await api.get("/v1/alerts")).items.filter((a) => !a.dismissed_at && (!a.expires_at || a.expires_at > now));
      replace(listHolder, section("Active alerts", items.length ? table(["Title", "Severity", "Expires", "Actions"], items.map((a) =>
        h("tr", { dataset: { id: a.id } }, h("th", { scope: "row" }, a.title, a.body ? h("p", { class: "hint" }, a.body) : null),
          h("td", {}, h("span", { class: `badge sev-${a.severity}` }, a.severity)), h("td", {}, a.expires_at ? formatTime(a.expires_at) : "never"),
          h("td", {}, button("Dismiss", async () => {
            try { await api.del(`/v1/alerts/${encodeURIComponent(a.id)}`); notify(`Alert "${a.title}" dismissed.`); reload(); }
            catch (err) { notify(describeError(err), "error"); }
          }, { "aria-label": `Dismiss ${a.title}` })))), "Active alerts") : h("p", {}, "No active alert.")));
    } catch (err) {
      replace(listHolder, h("p", { class: "note error" }, describeError(err)));
    }
  };
  replace(main, h("h1", {}, `Alerts on ${display.name}`), listHolder, section("Raise an alert", raiseForm(api, reload)));
  await reload();
}
