// Backups: targets with schedules, snapshots, pull now, download, restore (confirmed),
// upload, and progress while a pull, an upload or a restore runs.
import { bff, displayApi, describeError, ApiError } from "../api.js";
import { h, replace, field, setFieldError, button, notify, confirmDialog, formatBytes } from "../dom.js";
import { listDisplays } from "../store.js";
import { section, table } from "./common.js";
import { check } from "../schemaform.js";
import { controllerRequestSchema, property, inputLimits } from "../contract.js";

const when = (iso) => (iso ? new Date(iso).toLocaleString() : "—");

function progressBar(label) {
  const bar = h("progress", { max: "1", "aria-label": label });
  const text = h("span", { class: "hint" });
  const box = h("div", { class: "progress", role: "group", "aria-label": label }, bar, " ", text);
  return {
    box,
    set(value, message) {
      if (value === null || value === undefined) bar.removeAttribute("value"); else bar.value = value;
      text.textContent = message || "";
    },
  };
}

/** The display's own job progress while the controller pulls (when this browser holds its key). */
function watchDisplayJob(target, progress) {
  const display = listDisplays().find((d) => d.url === target.baseUrl && d.apiKey);
  if (!display) return () => {};
  const api = displayApi(display);
  let stop = false;
  const startedAt = Date.now();
  (async () => {
    while (!stop) {
      try {
        const status = await api.get("/v1/display/backup/status");
        const job = status.last_job;
        if (job && job.created_at_ms >= startedAt - 5000 && !stop) {
          progress.set(job.status === "ready" ? 1 : job.progress, job.status === "ready" ? "Copying the archive to the controller…" : `Display ${job.status}: ${Math.round((job.progress || 0) * 100)} %`);
        }
      } catch { /* the display may be busy: keep the bar indeterminate */ }
      await new Promise((r) => setTimeout(r, 700));
    }
  })();
  return () => { stop = true; };
}

/** After a restore the display exits and its supervisor starts it again: wait for a fresh process. */
async function waitForDisplay(target, progress, sentAt) {
  const api = displayApi({ url: target.baseUrl });
  const deadline = Date.now() + 180000;
  let wentAway = false;
  while (Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 1000));
    try {
      const health = await api.get("/v1/health", { anonymous: true });
      if (wentAway || health.uptime_seconds * 1000 < Date.now() - sentAt) return health;
    } catch { wentAway = true; }
    progress.set(null, "The display is restarting on the restored data…");
  }
  return null;
}

function uploadArchive(targetId, file, progress) {
  // XMLHttpRequest, not fetch: it reports upload progress.
  return new Promise((resolve, reject) => {
    const xhr = new XMLHttpRequest();
    xhr.open("POST", `/bff/v1/backup-targets/${encodeURIComponent(targetId)}/upload`);
    xhr.setRequestHeader("X-Requested-With", "svc-controller");
    xhr.setRequestHeader("Content-Type", "application/octet-stream");
    xhr.upload.onprogress = (e) => { if (e.lengthComputable) progress.set(e.loaded / e.total, `Uploading ${formatBytes(e.loaded)} of ${formatBytes(e.total)}`); };
    xhr.onload = () => {
      let body = null;
      try { body = JSON.parse(xhr.responseText); } catch { /* not JSON */ }
      if (xhr.status >= 200 && xhr.status < 300) resolve(body);
      else reject(body && body.code ? new ApiError(xhr.status, body.code, body.message, body.details) : new ApiError(xhr.status, `http_${xhr.status}`, `The controller answered ${xhr.status}.`));
    };
    xhr.onerror = () => reject(new ApiError(0, "network", "The controller cannot be reached."));
    xhr.send(file);
  });
}

async function snapshotsOf(target, holder, reloadAll) {
  const reload = () => snapshotsOf(target, holder, reloadAll);
  const progress = progressBar(`Progress for ${target.displayId}`);
  progress.box.hidden = true;
  let items = [];
  try { items = (await bff.get(`/backup-targets/${encodeURIComponent(target.id)}/snapshots`)).items; }
  catch (err) { replace(holder, h("p", { class: "note error" }, describeError(err))); return; }
  const restore = (s) => async () => {
    const ok = await confirmDialog(`Restore ${target.displayId} from this backup?`,
      `The display's program, content and settings are replaced by the backup of ${when(s.createdAt)}. The display restarts. This cannot be undone (pull a fresh backup first if unsure).`,
      "Restore now");
    if (!ok) return;
    progress.box.hidden = false;
    progress.set(null, "Sending the backup to the display…");
    try {
      const sentAt = Date.now();
      await bff.post(`/backup-snapshots/${encodeURIComponent(s.id)}/restore`);
      const health = await waitForDisplay(target, progress, sentAt);
      progress.set(1, health ? `Restored; the display is back (schema ${health.schema_version}).` : "Restored; the display has not come back yet.");
      notify(health ? `${target.displayId} restored.` : `${target.displayId} restored but not reachable yet.`, health ? "ok" : "warn");
    } catch (err) {
      progress.set(0, "");
      progress.box.hidden = true;
      notify(describeError(err), "error");
    }
  };
  const fileInput = h("input", { type: "file", id: `upload-${target.id}`, accept: ".zip,.tgz,.tar.gz,application/zip,application/gzip" });
  replace(holder,
    items.length ? table(["Taken", "Size", "Source", "Schema", "Actions"], items.slice().reverse().map((s) => h("tr", { dataset: { snapshot: s.id } },
      h("th", { scope: "row" }, when(s.createdAt)), h("td", {}, formatBytes(s.bytes)), h("td", {}, s.source), h("td", {}, s.schemaVersion ?? "—"),
      h("td", { class: "actions" },
        h("a", { class: "button", href: `/bff/v1/backup-snapshots/${encodeURIComponent(s.id)}/download`, download: "" }, "Download"),
        button("Restore", restore(s), { "aria-label": `Restore backup of ${when(s.createdAt)}` }),
        button("Delete", async () => {
          if (!(await confirmDialog("Delete this backup?", "The stored archive is removed from the controller.", "Delete"))) return;
          try { await bff.del(`/backup-snapshots/${encodeURIComponent(s.id)}`); notify("Backup deleted."); reload(); }
          catch (err) { notify(describeError(err), "error"); }
        }, { kind: "danger" })))), `Backups of ${target.displayId}`) : h("p", {}, "No backup stored yet."),
    progress.box,
    h("div", { class: "actions" },
      button("Pull a backup now", async (event) => {
        const btn = event.currentTarget;
        btn.disabled = true;
        progress.box.hidden = false;
        progress.set(null, "Asking the display for a backup…");
        const stopWatching = watchDisplayJob(target, progress);
        try {
          const snap = await bff.post(`/backup-targets/${encodeURIComponent(target.id)}/pull-now`);
          progress.set(1, `Backup stored (${formatBytes(snap.bytes)}).`);
          notify(`Backup of ${target.displayId} stored.`);
          await reloadAll();
        } catch (err) {
          progress.box.hidden = true;
          notify(describeError(err), "error");
          await reloadAll();
        } finally { stopWatching(); btn.disabled = false; }
      }, { kind: "primary" }),
      h("label", { for: fileInput.id, class: "button secondary" }, "Upload an archive…"), fileInput));
  fileInput.classList.add("sr-only");
  fileInput.addEventListener("change", async () => {
    const file = fileInput.files[0];
    if (!file) return;
    progress.box.hidden = false;
    try {
      await uploadArchive(target.id, file, progress);
      notify("Archive stored.");
      reload();
    } catch (err) { progress.box.hidden = true; notify(describeError(err), "error"); }
  });
}

function targetCard(target, reloadAll) {
  const snapshots = h("div", {}, "Loading…");
  snapshotsOf(target, snapshots, reloadAll);
  const last = target.lastRun;
  // titled by the display's name as this browser knows it (the id, and the address, in the details under it)
  const known = listDisplays().find((d) => d.id === target.displayId);
  return h("li", { class: "card target", dataset: { target: target.id } },
    h("h3", {}, known && known.name ? known.name : target.displayId, target.enabled ? null : h("span", { class: "badge warn" }, " paused")),
    h("p", { class: "hint" }, "Display ", h("span", { class: "mono" }, target.displayId), " at ", h("span", { class: "mono" }, target.baseUrl)),
    h("p", {}, `Schedule: ${target.cronExpr} (${target.timezone}) · next ${when(target.nextRunAt)} · keep ${target.retentionCount}`,
      target.apiKeyConfigured ? "" : " · no key set"),
    last ? h("p", { class: last.status === "failed" ? "note error" : "hint" },
      `Last run ${when(last.finishedAt || last.startedAt)}: ${last.status}${last.error ? ` — ${last.error}` : ""}`) : null,
    snapshots,
    h("div", { class: "actions" }, button(`Remove target ${target.displayId}`, async () => {
      if (!(await confirmDialog(`Remove ${target.displayId}?`, "The schedule and every stored backup of this display are deleted.", "Remove"))) return;
      try { await bff.del(`/backup-targets/${encodeURIComponent(target.id)}`); notify("Target removed."); reloadAll(); }
      catch (err) { notify(describeError(err), "error"); }
    }, { kind: "danger" })));
}

function targetForm(targetBody, reloadAll) {
  const displays = listDisplays();
  const which = field("Display", h("select", { name: "display" }, displays.map((d) => h("option", { value: d.id }, `${d.name} (${d.role || "?"})`))),
    { hint: "The controller keeps this display's key, encrypted, to pull backups; backups need an admin key." });
  const cron = field("Schedule (cron)", h("input", { type: "text", name: "cronExpr", placeholder: "0 2 * * 0", spellcheck: "false" }),
    { hint: "Five fields: minute hour day month weekday. Empty: Sundays 02:00, 5 minutes apart per display." });
  const zone = field("Time zone", h("input", { type: "text", name: "timezone", placeholder: "Europe/Paris", list: "zones-b" }), { hint: "Empty: the controller's." });
  // the number kept: the controller's limits (PUT /bff/v1/backup-targets in its /bff/v1/openapi.json)
  const keepSchema = property(targetBody, "retentionCount");
  const keep = field("Backups kept", h("input", { type: "number", name: "retentionCount", ...inputLimits(keepSchema), value: "7" }));
  const form = h("form", { class: "stack", novalidate: true, "aria-label": "New backup target" }, which.wrap, h("div", { class: "row fields" }, cron.wrap, zone.wrap, keep.wrap),
    h("datalist", { id: "zones-b" }, (Intl.supportedValuesOf ? Intl.supportedValuesOf("timeZone") : []).map((z) => h("option", { value: z }))),
    h("div", { class: "actions" }, h("button", { type: "submit", class: "primary" }, "Save target")));
  const fields = { cronExpr: cron, timezone: zone, retentionCount: keep, baseUrl: which, apiKey: which, displayId: which };
  form.addEventListener("submit", async (e) => {
    e.preventDefault();
    Object.values(fields).forEach((f) => setFieldError(f, []));
    const display = displays.find((d) => d.id === which.input.value);
    if (!display) { setFieldError(which, "Add a display first."); return; }
    const kept = keep.input.value.trim() === "" ? undefined : Number(keep.input.value);
    const problems = check(keepSchema, kept, false);
    if (problems.length) { setFieldError(keep, problems); keep.input.focus(); return; }
    const body = { displayId: display.id, baseUrl: display.url, apiKey: display.apiKey, enabled: true };
    if (kept !== undefined) body.retentionCount = kept;
    if (cron.input.value.trim()) body.cronExpr = cron.input.value.trim();
    if (zone.input.value.trim()) body.timezone = zone.input.value.trim();
    try { await bff.put("/backup-targets", body); notify(`Backups of ${display.name} scheduled.`); reloadAll(); }
    catch (err) {
      if (err instanceof ApiError && err.details) for (const [k, v] of Object.entries(err.details)) if (fields[k]) setFieldError(fields[k], v);
      notify(describeError(err), "error");
    }
  });
  return displays.length ? form : h("p", {}, "Add a display first.");
}

export async function render(main) {
  const list = h("ul", { class: "cards single", "aria-label": "Backup targets" });
  const reloadAll = async () => {
    try {
      const targets = (await bff.get("/backup-targets")).items;
      replace(list, targets.length ? targets.map((t) => targetCard(t, reloadAll)) : h("li", {}, "No backup target yet."));
    } catch (err) { replace(list, h("li", { class: "note error" }, describeError(err))); }
  };
  const formHolder = h("div", {});
  replace(main, h("h1", {}, "Backups"), list, formHolder);
  // the form shows once the list above it is drawn (nothing moves under the person's pointer)
  const [body] = await Promise.all([controllerRequestSchema("PUT", "/bff/v1/backup-targets").catch((err) => err), reloadAll()]);
  replace(formHolder, section("Back up a display", body instanceof Error
    ? h("p", { class: "note error" }, describeError(body)) : targetForm(body, reloadAll)));
}
