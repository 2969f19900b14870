// Displays: add by address, pair (code shown on the screen) or paste a key, health, remove.
import { displayApi, describeError, ApiError } from "../api.js";
import { h, replace, field, setFieldError, button, notify, confirmDialog } from "../dom.js";
import { listDisplays, saveDisplay, removeDisplay, setCurrent, currentDisplay, slug } from "../store.js";
import { section } from "./common.js";
import { powerLine } from "./power.js";
import { requestSchema, property, choices, inputLimits } from "../contract.js";


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

async function healthLine(display, cell) {
  try {
    const health = await displayApi(display).get("/v1/health", { anonymous: true });
    replace(cell, h("span", { class: "badge ok" }, "Reachable"), " ",
      `version ${health.version} · schema ${health.schema_version}`,
      health.hostname ? ` · ${health.hostname}` : "",
      health.uptime_seconds !== undefined ? ` · up ${Math.round(health.uptime_seconds / 60)} min` : "");
  } catch (err) {
    replace(cell, h("span", { class: "badge bad" }, "Unreachable"), " ", describeError(err));
  }
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

function displayCard(display, ctx) {
  const healthCell = h("p", { class: "health" }, "Checking…");
  healthLine(display, healthCell);
  const powerCell = h("p", { class: "power" });
  powerLine(display, powerCell);
  const isCurrent = currentDisplay() && currentDisplay().id === display.id;
  return h("li", { class: "card display", dataset: { display: display.id } },
    h("h3", {}, display.name, isCurrent ? h("span", { class: "badge" }, " current") : null),
    h("p", { class: "mono" }, display.url),
    h("p", {}, `Role: ${display.role || "unknown"}`, display.pairedWith ? ` · ${display.pairedWith}` : ""),
    healthCell, powerCell,
    h("div", { class: "actions" },
      isCurrent ? null : button("Use this display", () => { setCurrent(display.id); ctx.refresh(); }),
      button(`Remove ${display.name}`, async () => {
        const own = ownKey(display);
        const ok = await confirmDialog(`Remove ${display.name}?`,
          own ? "This controller forgets the display and revokes the key it was given when paired here. The display keeps its program."
            : "This controller forgets the display and its key. The display keeps its program; the key stays valid until an admin revokes it on the display.",
          "Remove");
        if (!ok) return;
        let note = `${display.name} removed.`;
        let kind = "ok";
        if (own) {
          try { await revoke(display); note = `${display.name} removed and its key revoked.`; }
          catch (err) { note = `${display.name} removed here, but its key could not be revoked: ${describeError(err)}`; kind = "warn"; }
        }
        removeDisplay(display.id);
        await ctx.refresh();
        notify(note, kind);
      }, { kind: "danger" })));
}

function addForm(ctx) {
  const name = field("Name", h("input", { type: "text", name: "name", required: true, autocomplete: "off" }),
    { hint: "How you call this screen, for example Lobby." });
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
    name.wrap, address.wrap,
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
        finish({ ...pending.display, apiKey: grant.api_key, role: grant.role, identifier: grant.identifier, pairedWith: "paired with a code" });
        return;
      }
      const label = name.input.value.trim();
      const url = normaliseUrl(address.input.value);
      let bad = false;
      if (!label) { setFieldError(name, "Give the display a name."); bad = true; }
      if (!url) { setFieldError(address, "Enter an address such as https://192.168.1.20:8787."); bad = true; }
      if (listDisplays().some((d) => d.id === slug(label))) { setFieldError(name, "A display with this name exists already."); bad = true; }
      if (bad) { form.querySelector("[aria-invalid=true]").focus(); return; }
      const display = { id: slug(label), name: label, url };
      const api = displayApi(display);
      await api.get("/v1/health", { anonymous: true }); // reachable at all?
      if (methodKey.checked) {
        const apiKey = key.input.value.trim();
        if (!apiKey) { setFieldError(key, "Paste the display's API key."); key.input.focus(); return; }
        try {
          const who = await displayApi({ ...display, apiKey }).get("/v1/adoption/session");
          finish({ ...display, apiKey, role: who.role, identifier: who.identifier, pairedWith: "key pasted" });
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

  function finish(display) {
    saveDisplay(display);
    setCurrent(display.id);
    notify(`${display.name} is paired (role ${display.role}).`);
    ctx.refresh();
  }
  return form;
}

export function render(main, ctx) {
  const list = listDisplays();
  replace(main, h("h1", {}, "Displays"),
    list.length ? h("ul", { class: "cards", "aria-label": "Your displays" }, list.map((d) => displayCard(d, ctx)))
      : h("p", {}, "No display yet. Add one below: you need its address and either access to its screen or an API key."),
    section("Add a display", addForm(ctx)),
    h("p", { class: "hint" }, "Keys are kept in this browser only (localStorage); see docs/webapp.md."));
}
