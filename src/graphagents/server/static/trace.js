// The trace of a turn as a timeline: one entry per graph step (node), holding the tool calls, their
// results, decisions, state changes and errors that happened inside it, with its duration and
// namespace (which team or sub-agent). Raw JSON only behind a "세부 정보" toggle.
"use strict";

window.GA = window.GA || {};

(() => {
  const GA = window.GA;
  const { el } = GA;

  function nsKey(ev) { return (ev.namespace || []).join("/"); }

  function shortJson(value, limit = 140) {
    const text = typeof value === "string" ? value : JSON.stringify(value);
    return text && text.length > limit ? text.slice(0, limit) + "…" : text || "";
  }

  function changedKeys(before, after) {
    const keys = new Set([...Object.keys(before || {}), ...Object.keys(after || {})]);
    return [...keys].filter((k) => JSON.stringify((before || {})[k]) !== JSON.stringify((after || {})[k]));
  }

  class Trace {
    constructor(list) {
      this.list = list;
      this.reset();
    }

    reset() {
      this.list.replaceChildren();
      this.open = [];        // entries of steps that started and have not ended, newest last
      this.turns = 0;
      this.lastState = null;
    }

    startTurn(text) {
      this.turns += 1;
      this.open = [];
      const li = el("li", "turn");
      li.appendChild(el("span", "", `${this.turns}번째 요청 `));
      li.appendChild(el("span", "turn-text", shortJson(text, 80)));
      this.list.appendChild(li);
      this.turnStarted = performance.now();
    }

    entry(ev) {
      const li = el("li", "step running");
      li.dataset.type = "step";
      li.dataset.node = ev.node;
      if (ev.namespace && ev.namespace.length) li.dataset.namespace = nsKey(ev);
      const details = el("details", "step-entry");
      const summary = el("summary");
      summary.appendChild(el("span", "step-name", ev.node));
      if (ev.namespace && ev.namespace.length) summary.appendChild(el("span", "ns", ev.namespace.join(" › ")));
      const counts = el("span", "trace-summary");
      summary.appendChild(counts);
      const dur = el("span", "dur", "실행 중");
      summary.appendChild(dur);
      details.appendChild(summary);
      const body = el("div", "step-body");
      const items = el("ul");
      body.appendChild(items);
      details.appendChild(body);
      li.appendChild(details);
      this.list.appendChild(li);
      const entry = { li, details, items, counts, dur, node: ev.node, ns: nsKey(ev), started: performance.now(), events: [ev], n: 0 };
      this.open.push(entry);
      return entry;
    }

    /** The step an event belongs to: the newest open step of the same namespace, else the newest open one. */
    owner(ev) {
      const key = nsKey(ev);
      for (let i = this.open.length - 1; i >= 0; i--) if (this.open[i].ns === key) return this.open[i];
      return this.open[this.open.length - 1] || null;
    }

    item(entry, ev, className, kind, text, data) {
      const li = el("li", `trace-item ${className}`);
      li.dataset.type = ev.type;
      if (ev.namespace && ev.namespace.length) {
        li.dataset.namespace = nsKey(ev);
        li.appendChild(el("span", "ns", ev.namespace.join(" › ")));
        li.appendChild(document.createTextNode(" "));
      }
      li.appendChild(el("span", "kind", kind));
      li.appendChild(document.createTextNode(text));
      if (data !== undefined) li.appendChild(GA.rawDetails("세부 정보", data));
      if (entry) {
        entry.items.appendChild(li);
        entry.events.push(ev);
        entry.n += 1;
        entry.counts.textContent = `${entry.n}건`;
        if (className.includes("error")) { entry.li.classList.add("failed"); entry.details.open = true; }
      } else {
        const holder = el("li", `step loose ${className.includes("error") ? "failed" : ""}`);
        const ul = el("ul", "loose-items");
        ul.appendChild(li);
        holder.appendChild(ul);
        this.list.appendChild(holder);
      }
      return li;
    }

    add(ev) {
      switch (ev.type) {
        case "token": return;
        case "step": {
          if (ev.phase === "start") { this.entry(ev); return; }
          let idx = -1;
          for (let i = this.open.length - 1; i >= 0; i--) {
            if (this.open[i].node === ev.node && this.open[i].ns === nsKey(ev)) { idx = i; break; }
          }
          const entry = idx >= 0 ? this.open.splice(idx, 1)[0] : this.entry(ev);
          entry.li.classList.remove("running");
          entry.dur.textContent = GA.duration(performance.now() - entry.started);
          entry.li.dataset.ms = String(Math.round(performance.now() - entry.started));
          entry.events.push(ev);
          if (ev.error) {
            this.item(entry, ev, "failed error", "실패", ` ${ev.error}`);
          }
          if (!entry.n) entry.counts.textContent = "";
          if (!entry.details.querySelector("details.raw.step-raw")) {
            const raw = GA.rawDetails("세부 정보 (JSON)", entry.events);
            raw.classList.add("step-raw");
            entry.details.querySelector(".step-body").appendChild(raw);
          }
          return;
        }
        case "tool_call":
          this.item(this.owner(ev), ev, "tool_call", "도구 호출", ` ${ev.tool}(${shortJson(ev.args, 120)})`, ev.args);
          return;
        case "tool_result":
          this.item(this.owner(ev), ev, `tool_result ${ev.ok ? "" : "error"}`.trim(), ev.ok ? "도구 결과" : "도구 오류",
                    ` ${ev.tool}: ${ev.summary}`, ev.data === null || ev.data === undefined ? undefined : ev.data);
          return;
        case "decision":
          this.item(this.owner(ev), ev, "decision", "결정", ` ${ev.kind}: ${ev.choice}${ev.reason ? " — " + ev.reason : ""}`,
                    ev.details && Object.keys(ev.details).length ? ev.details : undefined);
          return;
        case "state_update": {
          const keys = changedKeys(this.lastState, ev.state);
          this.lastState = ev.state;
          this.item(this.owner(ev), ev, "state_update", "상태 갱신", keys.length ? ` ${keys.join(", ")}` : "", ev.state);
          return;
        }
        case "error":
          this.item(this.owner(ev), ev, "error", "오류", ` [${ev.code}] ${ev.message}`);
          return;
        case "degraded":
          this.item(this.owner(ev), ev, "degraded", "대체 응답", ` ${ev.step}: ${ev.reason}`);
          return;
        case "final": {
          for (const entry of this.open) { entry.li.classList.remove("running"); entry.dur.textContent = "대기"; }
          this.open = [];
          const li = el("li", "trace-final");
          li.dataset.type = "final";
          const u = ev.usage;
          const total = GA.duration(performance.now() - (this.turnStarted || performance.now()));
          li.textContent = u
            ? `응답 · ${total} · 단계 ${u.steps} · 모델 호출 ${u.model_calls} · 토큰 ${GA.number(u.input_tokens + u.output_tokens)}`
            : `응답 · ${total}`;
          this.list.appendChild(li);
          return;
        }
        default:
          this.item(this.owner(ev), ev, "other", ev.type, "", ev);
      }
    }
  }

  GA.Trace = Trace;
})();
