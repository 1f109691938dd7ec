// api.js: the dashboard's calls to the broker's HTTP API. The token the
// person gave is kept in sessionStorage and sent as a Bearer credential;
// a 401 or 403 answer is an AuthError, which app.js turns into the token
// form.
"use strict";
window.QD = window.QD || {};
(function (QD) {
  const TOKEN = "queen.dashboard.token", TENANT = "queen.dashboard.tenant";

  QD.token = () => sessionStorage.getItem(TOKEN) || "";
  QD.tenant = () => sessionStorage.getItem(TENANT) || "";
  QD.setCredentials = (token, tenant) => {
    if (token) sessionStorage.setItem(TOKEN, token); else sessionStorage.removeItem(TOKEN);
    if (tenant) sessionStorage.setItem(TENANT, tenant); else sessionStorage.removeItem(TENANT);
  };

  // AuthError is a 401 or 403 answer.
  class AuthError extends Error {
    constructor(status, path, message) {
      super(message);
      this.status = status;
      this.path = path;
    }
  }
  // HTTPError is any other answer that is not 2xx.
  class HTTPError extends Error {
    constructor(status, path, message) {
      super(message);
      this.status = status;
      this.path = path;
    }
  }
  QD.AuthError = AuthError;
  QD.HTTPError = HTTPError;

  // call sends one request and answers its JSON body.
  QD.call = async function (method, path) {
    const headers = { "accept": "application/json" };
    const tok = QD.token(), tenant = QD.tenant();
    if (tok) headers["authorization"] = "Bearer " + tok;
    if (tenant) headers["x-queen-tenant"] = tenant;
    const resp = await fetch(path, { method, headers, cache: "no-store" });
    let body = null;
    const text = await resp.text();
    try { body = text ? JSON.parse(text) : null; } catch (e) { body = null; }
    const msg = (body && (body.error || body.message)) || (resp.status + " " + resp.statusText);
    if (resp.status === 401 || resp.status === 403) throw new AuthError(resp.status, path, msg);
    // /health answers 503 with its body while the node settles: still data.
    if (!resp.ok && !(path === "/health" && body)) throw new HTTPError(resp.status, path, msg);
    return body;
  };

  QD.get = (path) => QD.call("GET", path);
  QD.post = (path) => QD.call("POST", path);
})(window.QD);
