// Display power (docs/power.md): the state line of the display list ("Off, by schedule until
// 07:00") and the Power section of a display's settings page: the weekly schedule and
// on/off now. Times are the display's (its display_timezone), as the schedule is.
import { displayApi, describeError, ApiError } from "../api.js";
import { h, replace, field, setFieldError, notify, button, newId, confirmDialog } from "../dom.js";
import { section } from "./common.js";
import { requestSchema, property, choices } from "../contract.js";

// the days a window may name, and how many windows, are the display's (PUT /v1/display/power/schedule)
const DAY_NAMES = { mon: "Mon", tue: "Tue", wed: "Wed", thu: "Thu", fri: "Fri", sat: "Sat", sun: "Sun" };
const WORKDAYS = ["mon", "tue", "wed", "thu", "fri"]; // a new window's days, as far as the display has them

/** "07:00", or "Mon 07:00" when it is not within the next day, in the display's zone. */
function when(ms, zone) {
  const options = { hour: "2-digit", minute: "2-digit", hourCycle: "h23" };
  if (ms - Date.now() > 20 * 3600 * 1000) options.weekday = "short";
  try { return new Intl.DateTimeFormat("en-GB", { ...options, timeZone: zone || "UTC" }).format(new Date(ms)); }
  catch { return new Intl.DateTimeFormat("en-GB", options).format(new Date(ms)); }
}

/** The power state in words: "Off, by schedule until 07:00", "On, no schedule", "Off, turned off by hand". */
export function describePower(power, zone) {
  const state = power.state === "off" ? "Off" : "On";
  const why = { schedule: "by schedule", manual: `turned ${power.state} by hand`, default: "no schedule" }[power.reason] || power.reason;
  const until = power.next_change_at_ms ? ` until ${when(power.next_change_at_ms, zone)}` : "";
  return `${state}, ${why}${until}`;
}

const minutes = (hhmm) => Number(hhmm.slice(0, 2)) * 60 + Number(hhmm.slice(3, 5));

/** Minute of the week (the first of `week`, the display's days in its order, at 00:00 = 0) of `ms`
 * in the display's zone. */
function minuteOfWeek(ms, zone, week) {
  const format = (z) => new Intl.DateTimeFormat("en-GB", { weekday: "short", hour: "2-digit", minute: "2-digit",
    hourCycle: "h23", timeZone: z }).formatToParts(new Date(ms));
  let parts;
  try { parts = format(zone || "UTC"); } catch { parts = format("UTC"); }
  const part = (type) => parts.find((p) => p.type === type).value;
  return week.indexOf(part("weekday").toLowerCase().slice(0, 3)) * 1440 + Number(part("hour")) * 60 + Number(part("minute"));
}

/** Whether `schedule` has the display on at `ms` (the display's rule, builtin_plugins/power/schedule.py:
 * a window whose off is earlier than its on runs past midnight; an empty schedule is always on). */
export function scheduledOn(schedule, ms, zone, week) {
  if (!schedule.length) return true;
  const now = minuteOfWeek(ms, zone, week);
  return schedule.some((win) => {
    const on = minutes(win.on), off = minutes(win.off);
    const length = off > on ? off - on : off + 1440 - on;
    return win.days.some((day) => {
      const start = week.indexOf(day) * 1440 + on;
      return (now >= start && now < start + length) || (now + 7 * 1440 >= start && now + 7 * 1440 < start + length);
    });
  });
}

/** "Sunday 20:15" now, in the display's zone. */
function nowAt(zone) {
  const options = { weekday: "long", hour: "2-digit", minute: "2-digit", hourCycle: "h23" };
  try { return new Intl.DateTimeFormat("en-GB", { ...options, timeZone: zone || "UTC" }).format(new Date()); }
  catch { return new Intl.DateTimeFormat("en-GB", options).format(new Date()); }
}

async function loadPower(api) {
  const [power, settings] = await Promise.all([api.get("/v1/display/power"),
    api.get("/v1/display/settings").catch(() => ({}))]);
  return { power, zone: settings.display_timezone };
}

/** Fill `cell` (in the display list) with the display's power state; nothing for a display without it. */
export async function powerLine(display, cell) {
  try {
    const { power, zone } = await loadPower(displayApi(display));
    const panel = power.panel_state !== "unknown" && power.panel_state !== (power.state === "on" ? "on" : "standby")
      ? ` · the panel reads ${power.panel_state}` : "";
    replace(cell, h("span", { class: `badge ${power.state === "on" ? "ok" : "warn"}` }, "Power"),
      " ", describePower(power, zone), panel);
  } catch {
    replace(cell); // an older display without power routes, or unreachable (the health line says so)
  }
}

function windowRow(win, dayChoices, remove) {
  const legend = newId("win");
  const days = dayChoices.map(([d, name]) => h("label", { class: "check" },
    h("input", { type: "checkbox", name: "day", value: d, checked: win.days.includes(d) }), ` ${name}`));
  const on = field("On at", h("input", { type: "time", name: "on", value: win.on, required: true }));
  const off = field("Off at", h("input", { type: "time", name: "off", value: win.off, required: true }),
    { hint: "Earlier than on: runs past midnight." });
  // aligned at their labels: the hint under "Off at" must not push its box above "On at"'s
  const error = h("p", { class: "field-error", hidden: true, role: "alert" });
  const row = h("fieldset", { class: "choices power-window", "aria-labelledby": legend },
    h("legend", { id: legend }, "Window"), h("div", { class: "row" }, days), h("div", { class: "row fields" }, on.wrap, off.wrap),
    error, h("div", { class: "actions" }, button("Remove window", () => { row.remove(); remove(); }, { kind: "secondary small" })));
  row.read = () => ({ days: [...row.querySelectorAll("input[name=day]:checked")].map((i) => i.value),
    on: on.input.value, off: off.input.value });
  row.clearError = () => { error.hidden = true; setFieldError(on, []); setFieldError(off, []); };
  row.showError = (part, message) => {
    if (part === "on") setFieldError(on, message);
    else if (part === "off") setFieldError(off, message);
    else { error.hidden = false; error.textContent = part === "days" ? `Days: ${message}` : message; }
  };
  return row;
}

/** The Power section of a display's settings page. */
export async function powerSection(display, rerender) {
  const api = displayApi(display);
  let loaded;
  try { loaded = await loadPower(api); }
  catch (err) {
    if (err instanceof ApiError && err.status === 404) return null; // a display without the power plugin
    return section("Power", h("p", { class: "note error" }, describeError(err)));
  }
  const { power, zone } = loaded;
  let windows;
  try { windows = property(await requestSchema(display, "PUT", "/v1/display/power/schedule"), "schedule"); }
  catch (err) { return section("Power", h("p", { class: "note error" }, describeError(err))); }
  const dayChoices = choices(property(windows.items || {}, "days"), DAY_NAMES);
  const state = h("p", { class: "power-state" }, h("strong", {}, describePower(power, zone)),
    ` · backend ${power.backend}${power.backend_available ? "" : " (not available)"}`,
    power.panel_state !== "unknown" ? ` · the panel reads ${power.panel_state}` : "");
  const send = async (body, message) => {
    try { await api.post("/v1/display/power", body); }
    catch (err) { notify(describeError(err), "error"); return; }
    await rerender(); // said once the section shows the new state: a click before that lands on the old one
    notify(message);
  };
  const now = h("div", { class: "actions" },
    power.state === "on" ? button("Turn off now", () => send({ state: "off" }, "The display is turning off."), { kind: "danger" })
      : button("Turn on now", () => send({ state: "on" }, "The display is turning on."), { kind: "primary" }),
    power.override ? button("Back to schedule", () => send({ state: "auto" }, "The display follows its schedule again.")) : null);
  const rows = h("div", { class: "stack" });
  const empty = h("p", { class: "hint" }, "No window: the display is always on.");
  const addButton = button("Add a window", () => add({ days: WORKDAYS.filter((d) => dayChoices.some(([v]) => v === d)), on: "07:00", off: "19:00" }), { kind: "secondary" });
  const sync = () => {
    empty.hidden = rows.children.length > 0;
    addButton.disabled = windows.maxItems !== undefined && rows.children.length >= windows.maxItems;
  };
  const add = (win) => { rows.append(windowRow(win, dayChoices, sync)); sync(); };
  power.schedule.forEach(add);
  sync();
  const form = h("form", { class: "stack", novalidate: true, "aria-label": "Power schedule" },
    h("p", { class: "hint" }, `Times are the display's (${zone || "UTC"}). The display is on inside the windows and off outside them.`),
    rows, empty,
    h("div", { class: "actions" },
      addButton,
      h("button", { type: "submit", class: "primary" }, "Save schedule")));
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const list = [...rows.children];
    list.forEach((r) => r.clearError());
    const schedule = list.map((r) => r.read());
    // a schedule that turns the panel off at once is said first (an override keeps it as it is)
    const complete = schedule.every((w) => w.days.length && /^\d\d:\d\d$/.test(w.on) && /^\d\d:\d\d$/.test(w.off));
    if (complete && power.state === "on" && !power.override && !scheduledOn(schedule, Date.now(), zone, dayChoices.map(([d]) => d))
        && !(await confirmDialog("Turn the display off now?",
          `It is ${nowAt(zone)} at the display (${zone || "UTC"}), outside every window of this schedule: `
          + "saving it turns the panel off at once, until the next window starts.", "Save and turn off"))) {
      notify("Not saved: the display stays on.", "ok");
      return;
    }
    try {
      await api.put("/v1/display/power/schedule", { schedule });
    } catch (err) {
      const pointer = err instanceof ApiError && err.details && err.details.pointer;
      const match = typeof pointer === "string" && pointer.match(/^\/schedule\/(\d+)(?:\/(\w+))?/);
      if (match && list[Number(match[1])]) list[Number(match[1])].showError(match[2], err.details.reason);
      notify(describeError(err), "error");
      return;
    }
    // said once the section is drawn again: a window added before that went with the old form
    await rerender();
    notify("Power schedule saved.");
  });
  // a display older than its typed schedule schema names no days: its schedule is not editable here
  if (!dayChoices.length) return section("Power", state, now, h("h3", {}, "Weekly schedule"),
    h("p", { class: "note" }, "This display does not describe its schedule's days; upgrade it to edit the schedule here."));
  return section("Power", state, now, h("h3", {}, "Weekly schedule"), form);
}
