// Talking to the controller (/bff/v1) and, only through its proxy, to displays.
// Every failure becomes an ApiError whose .message a person can read.

const CSRF = { "X-Requested-With": "svc-controller" };

export class ApiError extends Error {
  constructor(status, code, message, details) {
    super(message);
    this.status = status;
    this.code = code;
    this.details = details || null;
  }
}

// Plain words for the codes a person meets most; anything else uses the server's message.
const FRIENDLY = {
  upstream_unreachable: "The display cannot be reached. Check that it is switched on, on this network, and that the address is right.",
  upstream_timeout: "The display took too long to answer. It may be busy or the network slow; try again.",
  proxy_target_forbidden: "This controller only talks to displays on the local network (private, loopback or .local addresses).",
  invalid_challenge: "That code is wrong or has expired. Request a new code and type the one shown on the screen.",
  adoption_role_not_allowed: "The display does not allow pairing with this role. Choose another role, or ask an admin to allow it in the display's settings.",
  adoption_requests_off: "The display takes no new pairing requests: an admin has switched them off (its setting adoption_allow_new_requests). Choose \"Paste an API key\" with a key made on the display, or ask an admin to switch new requests on.",
  adoption_unavailable: "The display cannot pair right now (its instance id is missing).",
  rate_limited: "Too many attempts. Wait a minute and try again.",
  forbidden: "The key this controller holds for the display may not do that (its role lacks the permission).",
  navigation_unavailable: "This display has no screen to navigate (it runs headless).",
  confirmation_required: "The display asks for confirmation first.",
  csrf_required: "The controller refused the request (missing X-Requested-With header).",
  invalid_credentials: "Wrong username or password.",
  backup_pull_failed: "The backup could not be pulled from the display.",
  backup_too_new: "This backup comes from a newer version of the display software; update the display first.",
  invalid_backup_archive: "The file is not a valid display backup.",
  payload_too_large: "The file is too large.",
  upgrade_unavailable: "This display cannot upgrade itself.",
  display_key_missing: "The controller holds no key for this display. Pair it again from the Displays page.",
};

export function describeError(err) {
  if (!(err instanceof ApiError)) return `Something went wrong: ${err && err.message ? err.message : err}`;
  const base = FRIENDLY[err.code] || err.message || `The request failed (${err.status}).`;
  if (err.code === "backup_pull_failed" || err.code === "invalid_backup_archive") {
    const reason = err.code === "backup_pull_failed" ? err.message : err.details && err.details.reason;
    return reason ? `${base} (${reason})` : base;
  }
  if (err.code === "validation_failed" && err.details) {
    const message = (err.message || "Some values are not valid").replace(/[.!]?$/, ".");
    return `${message.charAt(0).toUpperCase()}${message.slice(1)} See the messages next to the fields.`;
  }
  if (err.code === "unauthorized") {
    return "The display did not accept this controller's key. It may have been revoked: pair the display again.";
  }
  return base;
}

async function toError(response) {
  let body = null;
  try { body = await response.json(); } catch { /* not JSON */ }
  if (body && typeof body === "object" && typeof body.code === "string") {
    return new ApiError(response.status, body.code, body.message || "", body.details);
  }
  return new ApiError(response.status, "http_" + response.status, `The server answered ${response.status} ${response.statusText}.`);
}

// Set by main.js: called when the controller says we are not signed in.
let onSignedOut = () => {};
export function setSignedOutHandler(fn) { onSignedOut = fn; }

async function send(url, { method = "GET", json, body, headers = {}, raw = false, signal } = {}) {
  const h = { ...CSRF, ...headers };
  if (json !== undefined) { h["Content-Type"] = "application/json"; body = JSON.stringify(json); }
  let response;
  try {
    response = await fetch(url, { method, headers: h, body, credentials: "same-origin", signal });
  } catch (e) {
    if (e.name === "AbortError") throw e;
    throw new ApiError(0, "network", "The controller cannot be reached. Check your connection.");
  }
  if (!response.ok) {
    const err = await toError(response);
    if (response.status === 401 && err.code === "unauthorized" && url.startsWith("/bff/v1/") && !url.startsWith("/bff/v1/proxy/")) {
      onSignedOut();
    }
    throw err;
  }
  if (raw) return response;
  if (response.status === 204) return null;
  const type = response.headers.get("Content-Type") || "";
  return type.includes("json") ? response.json() : response.text();
}

/** The controller's own routes. */
export const bff = {
  get: (path, opts) => send(`/bff/v1${path}`, opts),
  put: (path, json) => send(`/bff/v1${path}`, { method: "PUT", json }),
  post: (path, opts = {}) => send(`/bff/v1${path}`, { method: "POST", ...opts }),
  del: (path) => send(`/bff/v1${path}`, { method: "DELETE" }),
};

/** How the proxy is told which display, and with which key (docs/controller.md "The proxy"):
 * a display picked from the controller's fleet (`viaController`, store.js) by its id (the
 * controller adds the key it stores); any other by its URL, with this browser's key. */
export function displayHeaders(display, { anonymous = false } = {}) {
  if (display.viaController) return { "X-Svc-Display-Id": display.id };
  const headers = { "X-Svc-Display-Url": display.url };
  if (display.apiKey && !anonymous) headers.Authorization = `Bearer ${display.apiKey}`;
  return headers;
}

/** The same for a WebSocket (browsers cannot set its headers): query parameters and subprotocols. */
export function displaySocket(display) {
  if (display.viaController) return { query: { svc_display_id: display.id }, protocols: [] };
  // the key travels as the subprotocol bearer.<key>
  return { query: { svc_display_url: display.url }, protocols: [`bearer.${display.apiKey}`] };
}

/** A display's REST interface through the controller's proxy. */
export function displayApi(display) {
  const call = async (method, path, opts = {}) => {
    const headers = { ...displayHeaders(display, opts), ...(opts.headers || {}) };
    try {
      return await send(`/bff/v1/proxy${path}`, { ...opts, method, headers });
    } catch (err) {
      // A 401 may be the controller's (signed out) or the display's (key refused): ask the controller.
      if (err instanceof ApiError && err.status === 401 && err.code === "unauthorized") {
        const session = await fetch("/bff/v1/auth/session", { credentials: "same-origin" });
        if (session.status === 401) onSignedOut();
      }
      throw err;
    }
  };
  return {
    get: (path, opts) => call("GET", path, opts),
    post: (path, json, opts = {}) => call("POST", path, { json, ...opts }),
    put: (path, json) => call("PUT", path, { json }),
    patch: (path, json) => call("PATCH", path, { json }),
    del: (path) => call("DELETE", path),
    raw: call,
  };
}
