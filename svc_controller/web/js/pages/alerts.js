// Alerts: raise one with an expiry, dismiss one.
import { displayApi, describeError, ApiError } from "../api.js";
import { h, replace, field, setFieldError, button, notify, formatTime } from "../dom.js";
import { needDisplay, section, table } from "./common.js";
import { schemaFields } from "../schemaform.js";
import { requestSchema, formSchema, property } from "../contract.js";

const EXPIRY = [["15 minutes", 15], ["1 hour", 60], ["4 hours", 240], ["1 day", 1440], ["1 week", 10080], ["Never", 0]];

// The form is the display's POST /v1/alerts body (limits, severities) with titles laid over;
// the expiry is chosen from EXPIRY and sent as expires_at.
// Icons offered for an alert: Material Symbols names the display's icon font has
// (svc_host/display/fonts), in words; the display takes any such name.
const ICONS = { warning: "Warning sign", info: "Information", error: "Error", campaign: "Announcement",
  local_fire_department: "Fire", emergency: "Emergency", construction: "Works", water_drop: "Water",
  ac_unit: "Cold", event: "Event", schedule: "Clock", restaurant: "Food", celebration: "Celebration",
  cake: "Birthday", notifications: "Bell", wifi_off: "No network" };
const SEVERITIES = { info: "Information", warning: "Warning", critical: "Critical" };
const LOOK = { title: { title: "Title" }, body: { title: "Text" },
  severity: { title: "Severity", enumTitles: SEVERITIES },
  qr_payload: { title: "QR code content", description: "Optional: shown as a QR code on the alert." },
  icon: { title: "Icon", enum: Object.keys(ICONS), enumTitles: ICONS, emptyTitle: "No icon",
    description: "Drawn beside the alert's title." } };

function raiseForm(api, body, raised) {
  const severity = property(body, "severity");
  // a real severity to start from: the display's default, else its first (never "(default)")
  const fields = schemaFields(formSchema(body, LOOK, { omit: ["expires_at", "priority", "source"] }),
    { severity: severity.default ?? (severity.enum || [])[0] }, { legend: "The alert" });
  const expiry = field("Expires after", h("select", { name: "expiry" }, EXPIRY.map(([label, minutes]) => h("option", { value: String(minutes) }, label))));
  expiry.input.value = "60";
  fields.element.insertBefore(expiry.wrap, fields.element.lastChild); // inside the box, above its form-wide error
  const form = h("form", { class: "stack", novalidate: true, "aria-label": "Raise an alert" },
    fields.element,
    h("div", { class: "actions" }, h("button", { type: "submit", class: "primary" }, "Raise alert")));
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    setFieldError(expiry, []);
    const { value, ok } = fields.collect();
    if (!ok) return fields.focusFirstError();
    const minutes = Number(expiry.input.value);
    const payload = { priority: 50, ...value, expires_at: minutes ? Date.now() + minutes * 60000 : null };
    try {
      const created = await api.post("/v1/alerts", payload);
      notify("Alert raised.");
      raised(created); // a fresh form (a second click raises no duplicate) and the new row shown
    } catch (err) {
      if (err instanceof ApiError && err.code === "validation_failed" && err.details) {
        const { expires_at: late, ...rest } = err.details;
        setFieldError(expiry, late);
        fields.showErrors(Object.fromEntries(Object.entries(rest).map(([k, v]) => [`/${k}`, v])));
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
          h("td", {}, h("span", { class: `badge sev-${a.severity}` }, SEVERITIES[a.severity] || a.severity)), h("td", {}, a.expires_at ? formatTime(a.expires_at) : "never"),
          h("td", {}, button("Dismiss", async () => {
            try { await api.del(`/v1/alerts/${encodeURIComponent(a.id)}`); notify(`Alert "${a.title}" dismissed.`); reload(); }
            catch (err) { notify(describeError(err), "error"); }
          }, { "aria-label": `Dismiss ${a.title}` })))), "Active alerts") : h("p", {}, "No active alert.")));
    } catch (err) {
      replace(listHolder, h("p", { class: "note error" }, describeError(err)));
    }
  };
  const formHolder = h("div", {});
  replace(main, h("h1", {}, `Alerts on ${display.name}`), listHolder, formHolder);
  const showForm = (body) => replace(formHolder, section("Raise an alert", raiseForm(api, body, async (created) => {
    showForm(body);
    await reload();
    const row = created && created.id ? listHolder.querySelector(`tr[data-id="${CSS.escape(created.id)}"]`) : null;
    if (row) { row.classList.add("fresh"); row.scrollIntoView({ block: "center" }); }
  })));
  requestSchema(display, "POST", "/v1/alerts").then(showForm,
    (err) => replace(formHolder, section("Raise an alert", h("p", { class: "note error" }, describeError(err)))));
  await reload();
}
