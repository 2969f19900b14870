// Displays: the controller's fleet with each display's state, kept current by the controller's
// events; add by address, pair (code shown on the screen) or paste a key; remove.
import { displayApi, describeError, ApiError } from "../api.js";
import { h, replace, field, setFieldError, button, notify, confirmDialog, formatTime } from "../dom.js";
import { listDisplays, saveDisplay, removeDisplay, setCurrent, currentDisplay, slug, fleetListing, registerDisplay, useRegistered,
  unregisterDisplay, moveOffered, markMoveOffered } from "../store.js";
import { section } from "./common.js";
import { powerLine } from "./power.js";
import { requestSchema, controllerRequestSchema, property, choices, inputLimits } from "../contract.js";
import { bff } from "../api.js";


function normaliseUrl(text) {
  let value = text.trim();
  if (!value) return null;
  if (!/^https?:\/\//i.test(value)) value = `https://${value}`;
  try {
    const url = new URL(value);
    if (!url.port && !/:\d+$/.test(url.host)) url.port = "8787";
    return url.origin;
  } catch { return null; }
}

// A display's state as the controller's poller last saw it (docs/controller.md "The fleet").
const STATES = {
  online: ["ok", "Online"], off: ["warn", "Off on purpose"], degraded: ["warn", "Degraded"],
  unreachable: ["bad", "Unreachable"], unknown: ["", "Not checked yet"],
};

/** A signed duration in words: "+12 ms", "-1,250 ms", "+3 min 20 s". */
export function signedDuration(ms) {
  const sign = ms < 0 ? "-" : "+";
  const abs = Math.abs(ms);
  if (abs < 10_000) return `${sign}${abs.toLocaleString("en")} ms`;
  if (abs < 120_000) return `${sign}${Math.round(abs / 1000)} s`;
  return `${sign}${Math.floor(abs / 60_000)} min ${Math.round((abs % 60_000) / 1000)} s`;
}

const shortHash = (hash) => (hash ? hash.slice(0, 8) : "(none)");

/** The display's sync group and its clock against the controller's (docs/controller.md "Displays in step"). */
function syncLine(status) {
  const parts = [];
  if (status.sync && status.sync.group) parts.push(`Sync group: ${status.sync.group} · program ${shortHash(status.sync.program_hash)}`);
  if (status.clock) {
    parts.push(`Clock: ${signedDuration(status.clock.offset_ms)} from the controller (±${status.clock.error_ms.toLocaleString("en")} ms)`);
  }
  return parts.length ? h("p", { class: "sync", dataset: { syncGroup: (status.sync && status.sync.group) || "" } }, parts.join(" · ")) : null;
}

function statusLine(status, cell) {
  const [kind, label] = STATES[status.state] || ["", status.state];
  const parts = [];
  if (status.version) parts.push(`version ${status.version}`);
  if (status.since_ms) parts.push(`since ${formatTime(status.since_ms)}`);
  replace(cell, h("span", { class: `badge ${kind}`, dataset: { state: status.state } }, label),
    parts.length ? ` ${parts.join(" · ")}` : "",
    syncLine(status),
    status.problems.length ? h("ul", { class: "problems" }, status.problems.map((p) => h("li", { dataset: { code: p.code } }, p.message))) : null);
}

/** The fleet's sync groups: a clear mark on a group whose members run different programs. */
function syncGroupsBox(box, groups, items) {
  const names = new Map(items.map((i) => [i.id, i.name]));
  const who = (ids) => ids.map((id) => names.get(id) || id).join(", ");
  replace(box, groups.length ? [h("h2", {}, "Displays in step"),
    h("ul", { class: "sync-groups" }, groups.map((g) => g.programsDiffer
      ? h("li", { class: "note warn", dataset: { syncGroup: g.group, programsDiffer: "true" } },
        h("span", { class: "badge warn" }, "Programs differ"),
        ` Programs differ in group ${g.group}: `,
        g.programs.map((p) => `${who(p.displayIds)} ${p.displayIds.length === 1 ? "runs" : "run"} ${shortHash(p.programHash)}`).join("; "),
        ". They change slides together only with the same program.")
      : h("li", { class: "note ok", dataset: { syncGroup: g.group, programsDiffer: "false" } },
        h("span", { class: "badge ok" }, "In step"),
        ` Group ${g.group}: ${who(g.displayIds)} ${g.displayIds.length === 1 ? "runs" : "run"} program ${shortHash((g.programs[0] || {}).programHash)}.`)))]
    : []);
  box.hidden = !groups.length;
}

/** A key this app was given by pairing (not one a person pasted), which it may revoke. */
function ownKey(display) {
  return display.role === "admin" && typeof display.identifier === "string" && display.identifier.startsWith("svc-controller-");
}

async function revoke(display) {
  const api = displayApi(display);
  const mine = (await api.get("/v1/adoption/clients")).items.find((c) => c.identifier === display.identifier);
  if (mine) await api.del(`/v1/adoption/clients/${encodeURIComponent(mine.id)}`);
}

function displayCard(item, ctx) {
  // `item` is the controller's; `local` what this browser holds for it (its key), if anything
  const local = listDisplays().find((d) => d.id === item.id) || null;
  const display = local ? { ...local, name: item.name, url: item.baseUrl }
    : { id: item.id, name: item.name, url: item.baseUrl, viaController: item.apiKeyConfigured };
  const statusCell = h("div", { class: "health", "aria-live": "polite" });
  statusLine(item.status, statusCell);
  const isCurrent = local && currentDisplay() && currentDisplay().id === item.id;
  // the power line in words of the display's own zone: asked of the current display only (one
  // request through the proxy, never one per card); the others show what the poller saw
  const powerCell = h("p", { class: "power" });
  if (isCurrent) powerLine(display, powerCell);
  const card = h("li", { class: "card display", dataset: { display: item.id } },
    h("h3", {}, item.name, isCurrent ? h("span", { class: "badge" }, " current") : null),
    h("p", { class: "mono" }, item.baseUrl),
    h("p", {}, item.group ? `Group: ${item.group} · ` : "", local && !local.viaController ? `Role: ${local.role || "unknown"}`
        : item.apiKeyConfigured ? "Key held by the controller" : "No key in this browser or the controller",
      local && local.pairedWith ? ` · ${local.pairedWith}` : ""),
    statusCell, powerCell,
    h("div", { class: "actions" },
      isCurrent || !(local || item.apiKeyConfigured) ? null
        : button("Use this display", () => { if (local) setCurrent(item.id); else useRegistered(item); ctx.refresh(); }),
      button(`Remove ${item.name}`, async () => {
        const own = local && ownKey(local);
        const ok = await confirmDialog(`Remove ${item.name}?`,
          own ? "The controller forgets the display and the key it was given when paired here is revoked. The display keeps its program."
            : "The controller forgets the display and its key. The display keeps its program; the key stays valid until an admin revokes it on the display.",
          "Remove");
        if (!ok) return;
        let note = `${item.name} removed.`;
        let kind = "ok";
        if (own) {
          try { await revoke(local); note = `${item.name} removed and its key revoked.`; }
          catch (err) { note = `${item.name} removed here, but its key could not be revoked: ${describeError(err)}`; kind = "warn"; }
        }
        try { await unregisterDisplay(item.id); } catch (err) { if (!(err instanceof ApiError && err.status === 404)) throw err; }
        removeDisplay(item.id);
        await ctx.refresh();
        notify(note, kind);
      }, { kind: "danger" })));
  card.update = (next) => statusLine(next.status, statusCell);
  return card;
}

/** The one-time offer to move the displays this browser held into the controller's fleet. */
function moveOffer(missing, ctx) {
  const names = missing.map((d) => d.name).join(", ");
  const box = h("section", { class: "card notice-box", "aria-label": "Move displays into the controller" },
    h("h2", {}, "Move your displays into the controller"),
    h("p", {}, `This browser holds ${missing.length} display${missing.length > 1 ? "s" : ""} the controller does not know yet (${names}). `,
      "Moved, every operator and browser sees them, and the controller watches them."),
    h("div", { class: "actions" },
      button(`Move ${missing.length} display${missing.length > 1 ? "s" : ""}`, async () => {
        const failed = [];
        for (const d of missing) {
          try { await registerDisplay(d); } catch (err) { failed.push(`${d.name}: ${describeError(err)}`); }
        }
        markMoveOffered("moved");
        await ctx.refresh();
        if (failed.length) notify(`Some displays could not be moved. ${failed.join(" ")}`, "warn");
        else notify(`${missing.length} display${missing.length > 1 ? "s" : ""} moved into the controller.`);
      }, { kind: "primary" }),
      button("Not now", () => { markMoveOffered("declined"); box.remove(); }, { kind: "secondary" })));
  return box;
}

function addForm(ctx, known) {
  const name = field("Name", h("input", { type: "text", name: "name", required: true, autocomplete: "off" }),
    { hint: "How you call this screen, for example Lobby." });
  const groupField = field("Group", h("input", { type: "text", name: "group", autocomplete: "off" }),
    { hint: "Optional: displays of one group can be acted on together (alerts, power, pause)." });
  const address = field("Address", h("input", { type: "text", name: "url", required: true, inputmode: "url", autocomplete: "off",
    placeholder: "https://192.168.1.20:8787" }), { hint: "The display's address on your network; port 8787 when none is given." });
  const methodPair = h("input", { type: "radio", name: "method", value: "pair", checked: true, id: "method-pair" });
  const methodKey = h("input", { type: "radio", name: "method", value: "key", id: "method-key" });
  // the roles (and the code's length) are the display's: read from its /v1/openapi.json once the address is known
  const role = field("Role to request", h("select", { name: "role" }, h("option", { value: "" }, "(the display's roles, once its address is typed)")),
    { hint: "admin is needed for backups and restores; operator can change the program." });
  const key = field("API key", h("input", { type: "password", name: "apiKey", autocomplete: "off", spellcheck: "false" }),
    { hint: "A key made on the display, for example with svc-display keys create. It starts with svc_." });
  key.wrap.hidden = true;
  const code = field("Code shown on the display", h("input", { type: "text", name: "code", autocomplete: "one-time-code",
    inputmode: "text", spellcheck: "false", placeholder: "XXXX-XXXX" }),
    { hint: "The display shows an 8-character code for 5 minutes." });
  code.wrap.hidden = true;
  let rolesOf = null; // the address whose roles the select shows (or is fetching)
  const loadRoles = async () => {
    const url = normaliseUrl(address.input.value);
    if (!url || url === rolesOf) return;
    rolesOf = url;
    try {
      const [request, confirm] = await Promise.all([requestSchema({ url }, "POST", "/v1/adoption/request"),
        requestSchema({ url }, "POST", "/v1/adoption/confirm")]);
      if (rolesOf !== url) return; // the address changed meanwhile
      const schema = property(request, "role");
      const previous = role.input.value;
      const list = choices(schema);
      replace(role.input, list.map(([v, text]) => h("option", { value: v }, text)));
      role.input.value = list.some(([v]) => v === previous) ? previous : (schema.default !== undefined ? schema.default : (list[0] || [""])[0]);
      for (const [k, v] of Object.entries(inputLimits(property(confirm, "challenge_code")))) code.input.setAttribute(k, v);
    } catch {
      if (rolesOf === url) rolesOf = null; // unreachable or refused: the submit says why
    }
  };
  let typing = null;
  address.input.addEventListener("input", () => { clearTimeout(typing); typing = setTimeout(loadRoles, 300); });
  address.input.addEventListener("change", loadRoles);
  const submit = h("button", { type: "submit", class: "primary" }, "Request a code");
  let pending = null; // {display, identifier} while waiting for the code

  const onMethod = () => {
    const pair = methodPair.checked;
    role.wrap.hidden = !pair;
    key.wrap.hidden = pair;
    code.wrap.hidden = true;
    pending = null;
    submit.textContent = pair ? "Request a code" : "Add display";
  };
  methodPair.addEventListener("change", onMethod);
  methodKey.addEventListener("change", onMethod);

  const form = h("form", { class: "stack", novalidate: true, "aria-label": "Add a display" },
    name.wrap, address.wrap, groupField.wrap,
    h("fieldset", { class: "choices" }, h("legend", {}, "How to pair"),
      h("label", { class: "check", for: "method-pair" }, methodPair, " Show a code on the display"),
      h("label", { class: "check", for: "method-key" }, methodKey, " Paste an API key")),
    role.wrap, key.wrap, code.wrap, h("div", { class: "actions" }, submit));

  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    for (const f of [name, address, key, code]) setFieldError(f, []);
    submit.disabled = true;
    try {
      if (pending) {
        const text = code.input.value.trim();
        if (!text) { setFieldError(code, "Type the code shown on the display."); return; }
        const grant = await displayApi(pending.display).post("/v1/adoption/confirm",
          { identifier: pending.identifier, challenge_code: text }, { anonymous: true });
        await finish({ ...pending.display, apiKey: grant.api_key, role: grant.role, identifier: grant.identifier, pairedWith: "paired with a code" });
        return;
      }
      const label = name.input.value.trim();
      const url = normaliseUrl(address.input.value);
      let bad = false;
      if (!label) { setFieldError(name, "Give the display a name."); bad = true; }
      if (!url) { setFieldError(address, "Enter an address such as https://192.168.1.20:8787."); bad = true; }
      if (listDisplays().some((d) => d.id === slug(label)) || known.has(slug(label))) { setFieldError(name, "A display with this name exists already."); bad = true; }
      if (bad) { form.querySelector("[aria-invalid=true]").focus(); return; }
      const display = { id: slug(label), name: label, url, group: groupField.input.value.trim() || undefined };
      const api = displayApi(display);
      await api.get("/v1/health", { anonymous: true }); // reachable at all?
      if (methodKey.checked) {
        const apiKey = key.input.value.trim();
        if (!apiKey) { setFieldError(key, "Paste the display's API key."); key.input.focus(); return; }
        try {
          const who = await displayApi({ ...display, apiKey }).get("/v1/adoption/session");
          await finish({ ...display, apiKey, role: who.role, identifier: who.identifier, pairedWith: "key pasted" });
        } catch (err) {
          if (err instanceof ApiError && err.code === "unauthorized") { setFieldError(key, "The display does not accept this key."); key.input.focus(); return; }
          throw err;
        }
        return;
      }
      const identifier = `svc-controller-${display.id}-${Math.random().toString(36).slice(2, 8)}`;
      await loadRoles();
      const chosen = role.input.value; // empty: the display's default role
      await api.post("/v1/adoption/request", { identifier, ...(chosen ? { role: chosen } : {}) }, { anonymous: true });
      pending = { display, identifier };
      code.wrap.hidden = false;
      submit.textContent = "Pair";
      code.input.focus();
      notify("A code is now shown on the display. Type it below.");
    } catch (err) {
      if (err instanceof ApiError && err.code === "invalid_challenge") { setFieldError(code, describeError(err)); code.input.focus(); }
      else notify(describeError(err), "error");
    } finally {
      submit.disabled = false;
    }
  });

  async function finish(display) {
    await registerDisplay(display); // the fleet's: every operator sees it
    saveDisplay(display); // this browser's key, for the pages that program it
    setCurrent(display.id);
    notify(`${display.name} is paired (role ${display.role}).`);
    ctx.refresh();
  }
  return form;
}

// Bulk actions (POST /bff/v1/fleet/actions): the action names come from the controller's schema.
const ACTION_WORDS = { raise_alert: "Raise an alert", clear_alerts: "Clear alerts", set_power_schedule: "Set a power schedule",
  pause_program: "Pause the program", resume_program: "Resume the program" };
const RESULT_WORDS = { done: "Done", failed: "Failed", timed_out: "Timed out" };

async function groupForm(items) {
  const groups = [...new Set(items.map((i) => i.group).filter(Boolean))].sort();
  if (!groups.length) return h("p", { class: "hint" }, "Give displays a group (below, or PUT /bff/v1/displays/{id}) to act on them together.");
  const body = await controllerRequestSchema("POST", "/bff/v1/fleet/actions");
  const group = field("Group", h("select", { name: "group" }, groups.map((g) => h("option", { value: g }, g))));
  const action = field("Action", h("select", { name: "action" },
    choices(property(body, "action"), ACTION_WORDS).map(([v, text]) => h("option", { value: v }, text))));
  const title = field("Alert title", h("input", { type: "text", name: "title", autocomplete: "off" }));
  const message = field("Alert text", h("input", { type: "text", name: "message", autocomplete: "off" }));
  const on = field("On at", h("input", { type: "time", name: "on", value: "07:00" }), { hint: "Every day; leave both empty for always on." });
  const off = field("Off at", h("input", { type: "time", name: "off", value: "19:00" }));
  const results = h("div", { class: "results", "aria-live": "polite" });
  const sync = () => {
    const a = action.input.value;
    title.wrap.hidden = message.wrap.hidden = a !== "raise_alert";
    on.wrap.hidden = off.wrap.hidden = a !== "set_power_schedule";
  };
  action.input.addEventListener("change", sync);
  sync();
  const submit = h("button", { type: "submit", class: "primary" }, "Apply to the group");
  const form = h("form", { class: "stack", novalidate: true, "aria-label": "Act on a group" },
    group.wrap, action.wrap, title.wrap, message.wrap, on.wrap, off.wrap, h("div", { class: "actions" }, submit), results);
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    setFieldError(title, []);
    const request = { group: group.input.value, action: action.input.value };
    if (request.action === "raise_alert") {
      if (!title.input.value.trim()) { setFieldError(title, "Give the alert a title."); title.input.focus(); return; }
      request.alert = { title: title.input.value.trim(), body: message.input.value.trim() };
    }
    if (request.action === "set_power_schedule") {
      // every day the display knows (its own schema's list), from on to off
      let days = [];
      const current = currentDisplay();
      if (current && on.input.value && off.input.value) {
        const windows = property(await requestSchema(current, "PUT", "/v1/display/power/schedule"), "schedule");
        days = choices(property(windows.items || {}, "days")).map(([v]) => v);
      }
      request.schedule = days.length ? [{ days, on: on.input.value, off: off.input.value }] : [];
    }
    submit.disabled = true;
    replace(results, h("p", {}, "Asking every display of the group…"));
    try {
      const answer = await bff.post("/fleet/actions", { json: request });
      replace(results, h("p", {}, `${answer.done} done, ${answer.failed} failed, ${answer.timed_out} timed out.`),
        h("ul", { class: "bulk-results", "aria-label": "Result per display" }, answer.items.map((i) =>
          h("li", { dataset: { display: i.id, result: i.result } },
            h("span", { class: `badge ${i.result === "done" ? "ok" : "bad"}` }, RESULT_WORDS[i.result] || i.result), ` ${i.name}`,
            i.reason ? ` · ${i.reason}` : ""))));
    } catch (err) {
      replace(results);
      notify(describeError(err), "error");
    } finally {
      submit.disabled = false;
    }
  });
  return form;
}

// Proof of play of a group (GET /bff/v1/fleet/plays): one CSV of every display's plays, then a
// summary naming the displays that did not answer (docs/controller.md "Proof of play of a group").
function localDay(date) {
  const pad = (n) => String(n).padStart(2, "0");
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}`;
}

/** Midnight (this browser's zone) starting the day `text` (YYYY-MM-DD), plus `days`; NaN when not a day. */
function dayStart(text, days = 0) {
  const match = /^(\d{4})-(\d{2})-(\d{2})$/.exec(text || "");
  if (!match) return NaN;
  return new Date(Number(match[1]), Number(match[2]) - 1, Number(match[3]) + days).getTime();
}

function playsForm(items) {
  const groups = [...new Set(items.map((i) => i.group).filter(Boolean))].sort();
  if (!groups.length) return null;
  const today = new Date();
  const weekAgo = new Date(today.getFullYear(), today.getMonth(), today.getDate() - 6);
  const group = field("Group", h("select", { name: "group" }, groups.map((g) => h("option", { value: g }, g))));
  const from = field("From", h("input", { type: "date", name: "from", value: localDay(weekAgo), required: true }),
    { hint: "The first day, from midnight in this browser's time zone." });
  const to = field("To", h("input", { type: "date", name: "to", value: localDay(today), required: true }),
    { hint: "The last day, included." });
  const results = h("div", { class: "results", "aria-live": "polite" });
  const submit = h("button", { type: "submit", class: "primary" }, "Download CSV");
  const form = h("form", { class: "stack", novalidate: true, "aria-label": "Export the plays of a group" },
    h("h3", {}, "Proof of play"),
    h("p", { class: "hint" }, "Every slide, alert and overlay the displays of a group showed, in one CSV file for a spreadsheet; it ends with a summary naming any display that did not answer."),
    group.wrap, from.wrap, to.wrap, h("div", { class: "actions" }, submit), results);
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    for (const f of [group, from, to]) setFieldError(f, []);
    const fromMs = dayStart(from.input.value);
    const toMs = dayStart(to.input.value, 1);
    if (Number.isNaN(fromMs)) { setFieldError(from, "Pick the first day."); from.input.focus(); return; }
    if (Number.isNaN(toMs)) { setFieldError(to, "Pick the last day."); to.input.focus(); return; }
    if (toMs <= fromMs) { setFieldError(to, "The last day cannot be before the first."); to.input.focus(); return; }
    submit.disabled = true;
    replace(results, h("p", {}, "Asking every display of the group for its plays…"));
    try {
      const query = new URLSearchParams({ group: group.input.value, from_ms: String(fromMs), to_ms: String(toMs) });
      const response = await bff.get(`/fleet/plays?${query}`, { raw: true });
      const blob = await response.blob();
      const name = (/filename="([^"]+)"/.exec(response.headers.get("Content-Disposition") || "") || [])[1] || "plays.csv";
      const url = URL.createObjectURL(blob);
      const link = h("a", { href: url, download: name, hidden: true });
      document.body.append(link);
      link.click();
      link.remove();
      setTimeout(() => URL.revokeObjectURL(url), 60_000);
      const names = new Map(items.map((i) => [i.id, i.name]));
      const incomplete = (response.headers.get("X-Svc-Plays-Incomplete") || "").split(",").filter(Boolean);
      replace(results,
        h("p", { class: "exported" }, `${response.headers.get("X-Svc-Plays-Rows") || 0} plays saved as ${name}.`),
        incomplete.length
          ? h("p", { class: "incomplete", dataset: { displays: incomplete.join(",") } },
            h("span", { class: "badge bad" }, "Missing"),
            ` Not in the file, or not whole: ${incomplete.map((id) => names.get(id) || id).join(", ")}. The summary at the end of the file says why.`)
          : h("p", {}, "Every display of the group answered."));
    } catch (err) {
      replace(results);
      if (err instanceof ApiError && err.details) {
        for (const [key, f] of [["group", group], ["from_ms", from], ["to_ms", to]]) if (err.details[key]) setFieldError(f, err.details[key]);
      }
      notify(describeError(err), "error");
    } finally {
      submit.disabled = false;
    }
  });
  return form;
}

export async function render(main, ctx) {
  const { items, syncGroups } = await fleetListing();
  const known = new Set(items.map((i) => i.id));
  const missing = listDisplays().filter((d) => !known.has(d.id) && !d.viaController);
  const cards = new Map(items.map((item) => [item.id, displayCard(item, ctx)]));
  const groupsBox = h("section", { class: "card", "aria-label": "Displays in step", "aria-live": "polite" });
  syncGroupsBox(groupsBox, syncGroups || [], items);
  replace(main, h("h1", {}, "Displays"),
    missing.length && !moveOffered() ? moveOffer(missing, ctx) : null,
    groupsBox,
    items.length ? h("ul", { class: "cards", "aria-label": "Your displays" }, [...cards.values()])
      : h("p", {}, "No display yet. Add one below: you need its address and either access to its screen or an API key."),
    section("Act on a group", await groupForm(items), playsForm(items)),
    section("Add a display", addForm(ctx, known)),
    h("p", { class: "hint" }, "The controller keeps the fleet and watches every display; the keys this browser was given stay in this browser too (see docs/webapp.md)."));
  // the controller's status changes, as they happen (an EventSource reconnects by itself, and
  // the controller then sends every display's state again)
  const events = new EventSource("/bff/v1/fleet/events");
  let regroup = null; // the sync groups are the fleet's: asked again once a burst of changes has passed
  events.addEventListener("status", (event) => {
    let item;
    try { item = JSON.parse(event.data); } catch { return; }
    const card = cards.get(item.id);
    if (card) card.update(item);
    clearTimeout(regroup);
    regroup = setTimeout(async () => {
      try { const fresh = await fleetListing(); syncGroupsBox(groupsBox, fresh.syncGroups || [], fresh.items); } catch { /* the next event tries again */ }
    }, 300);
  });
  return () => { clearTimeout(regroup); events.close(); };
}
