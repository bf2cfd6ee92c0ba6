// Sign-in for the web page when the server authenticates requests (GRAPHAGENTS_AUTH=on).
// Self-contained: it owns the #auth element and wraps fetch() for same-origin /api/ calls, so the
// rest of the page needs no change. The API key is sent once, to /api/auth/login, which answers with
// an http-only, same-site cookie (the page never holds a credential) and a CSRF token that this
// module adds to every state-changing request. A 401 on any call shows the sign-in form and retries
// the call once signed in.
"use strict";

(() => {
  const box = document.getElementById("auth");
  const nativeFetch = window.fetch.bind(window);
  const SAFE = new Set(["GET", "HEAD", "OPTIONS"]);
  let csrf = null;
  let pending = null; // the promise of the sign-in in progress, shared by every waiting call

  function apiPath(input) {
    const url = new URL(typeof input === "string" ? input : input.url, window.location.href);
    return url.origin === window.location.origin && url.pathname.startsWith("/api/") ? url.pathname : null;
  }

  function node(tag, attrs = {}, text) {
    const el = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs)) el.setAttribute(k, v);
    if (text !== undefined) el.textContent = text;
    return el;
  }

  async function errorOf(res) {
    try { return (await res.json()).error || res.statusText; } catch (_) { return res.statusText; }
  }

  function showUser(me) {
    box.replaceChildren();
    box.hidden = false;
    box.dataset.state = "signed-in";
    box.append(node("span", { id: "auth-user" }, `Signed in as ${me.user_id}`));
    if (me.via === "cookie") {
      const out = node("button", { type: "button", id: "auth-sign-out" }, "Sign out");
      out.addEventListener("click", signOut);
      box.append(out);
    }
  }

  function signIn(reason) {
    if (pending) return pending;
    pending = new Promise((resolve) => {
      box.replaceChildren();
      box.hidden = false;
      box.dataset.state = "signed-out";
      const form = node("form", { id: "auth-form", "aria-label": "sign in" });
      const label = node("label", { for: "auth-key" }, "API key");
      const input = node("input", { id: "auth-key", type: "password", autocomplete: "off", spellcheck: "false",
                                    placeholder: "ga_…", required: "" });
      const button = node("button", { type: "submit", id: "auth-submit" }, "Sign in");
      const first = !reason || reason.startsWith("authentication required");
      const note = node("span", { id: "auth-error", role: "alert" },
                        first ? "Sign in with an API key (graphagents keys create)" : reason);
      form.append(label, input, button, note);
      box.append(form);
      input.focus();
      form.addEventListener("submit", async (e) => {
        e.preventDefault();
        button.disabled = true;
        try {
          const res = await nativeFetch("/api/auth/login", {
            method: "POST", credentials: "same-origin", headers: { "content-type": "application/json" },
            body: JSON.stringify({ api_key: input.value.trim() }),
          });
          input.value = ""; // the key is not kept anywhere on the page
          if (!res.ok) { note.textContent = await errorOf(res); note.className = "failed"; return; }
          const me = await res.json();
          csrf = me.csrf_token;
          showUser({ user_id: me.user_id, via: "cookie" });
          pending = null;
          resolve();
        } finally {
          button.disabled = false;
        }
      });
    });
    return pending;
  }

  async function signOut() {
    await authFetch("/api/auth/logout", { method: "POST" });
    window.location.reload(); // nothing of the previous user stays on the page
  }

  async function authFetch(input, init = {}) {
    const path = apiPath(input);
    if (path === null) return nativeFetch(input, init);
    const method = (init.method || (typeof input === "string" ? "GET" : input.method) || "GET").toUpperCase();
    const attempt = () => {
      const headers = new Headers(init.headers || {});
      if (csrf && !SAFE.has(method)) headers.set("X-CSRF-Token", csrf);
      return nativeFetch(input, { ...init, headers, credentials: "same-origin" });
    };
    let res = await attempt();
    if (res.status === 401 && path !== "/api/auth/login") {
      await signIn(await errorOf(res.clone()));
      res = await attempt();
    }
    return res;
  }

  window.fetch = authFetch;
  window.graphagentsAuth = { signIn, signOut, get csrfToken() { return csrf; } };

  // Who is here already (a cookie from an earlier visit)? Auth off: the box stays hidden.
  nativeFetch("/api/auth/me", { credentials: "same-origin" }).then(async (res) => {
    if (!res.ok) return; // 401: the first API call of the page opens the form
    const me = await res.json();
    if (me.csrf_token) csrf = me.csrf_token;
    if (me.auth) showUser(me);
  }).catch(() => {});
})();
