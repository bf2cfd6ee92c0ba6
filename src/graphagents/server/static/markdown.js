// A small, safe Markdown renderer for documents the agents write (a contract draft): headings,
// paragraphs, bullet, numbered and task lists, block quotes, code blocks, tables, rules, and inline
// **bold**, *italic*, `code` and http(s) links. Every node is built with createElement/textContent:
// raw HTML in the text stays text, so nothing an agent (or a model) writes can inject markup.
"use strict";

window.GA = window.GA || {};

(() => {
  const INLINE = /(\*\*[^*\n]+\*\*|__[^_\n]+__|\*[^*\n]+\*|_[^_\n]+_|`[^`\n]+`|\[[^\]\n]+\]\([^)\s]+\))/g;

  function node(tag, text) {
    const n = document.createElement(tag);
    if (text !== undefined) n.textContent = text;
    return n;
  }

  /** Inline spans of one line of text as nodes appended to ``parent``. */
  function inline(parent, text) {
    let last = 0;
    for (const m of text.matchAll(INLINE)) {
      if (m.index > last) parent.appendChild(document.createTextNode(text.slice(last, m.index)));
      const t = m[0];
      if (t.startsWith("**") || t.startsWith("__")) inline(parent.appendChild(node("strong")), t.slice(2, -2));
      else if (t.startsWith("`")) parent.appendChild(node("code", t.slice(1, -1)));
      else if (t.startsWith("[")) {
        const cut = t.indexOf("](");
        const label = t.slice(1, cut);
        const href = t.slice(cut + 2, -1);
        if (/^https?:\/\//i.test(href)) {
          const a = node("a", label);
          a.href = href; a.target = "_blank"; a.rel = "noopener noreferrer";
          parent.appendChild(a);
        } else parent.appendChild(document.createTextNode(label));  // no javascript:, data: or relative links
      } else inline(parent.appendChild(node("em")), t.slice(1, -1));
      last = m.index + t.length;
    }
    if (last < text.length) parent.appendChild(document.createTextNode(text.slice(last)));
    return parent;
  }

  const LIST_ITEM = /^(\s*)([-*+]|\d+[.)])\s+(.*)$/;
  const TABLE_RULE = /^\s*\|?\s*:?-{3,}:?\s*(\|\s*:?-{3,}:?\s*)*\|?\s*$/;

  function cells(line) {
    return line.trim().replace(/^\|/, "").replace(/\|$/, "").split("|").map((c) => c.trim());
  }

  /** A document fragment for ``text``. */
  function markdown(text) {
    const out = document.createDocumentFragment();
    const lines = String(text || "").replace(/\r\n?/g, "\n").split("\n");
    let i = 0;
    while (i < lines.length) {
      const line = lines[i];
      if (!line.trim()) { i++; continue; }
      const fence = line.match(/^\s*(```|~~~)/);
      if (fence) {
        const body = [];
        for (i++; i < lines.length && !lines[i].trim().startsWith(fence[1]); i++) body.push(lines[i]);
        i++;
        out.appendChild(node("pre")).appendChild(node("code", body.join("\n")));
        continue;
      }
      const heading = line.match(/^(#{1,6})\s+(.*?)\s*#*\s*$/);
      if (heading) {
        out.appendChild(inline(node(`h${Math.min(6, heading[1].length + 2)}`), heading[2]));  // h3..h6 inside a reply
        i++;
        continue;
      }
      if (/^\s*([-*_])(\s*\1){2,}\s*$/.test(line)) { out.appendChild(node("hr")); i++; continue; }
      if (line.trim().startsWith(">")) {
        const quote = [];
        for (; i < lines.length && lines[i].trim().startsWith(">"); i++) quote.push(lines[i].trim().replace(/^>\s?/, ""));
        out.appendChild(node("blockquote")).appendChild(markdown(quote.join("\n")));
        continue;
      }
      if (line.includes("|") && i + 1 < lines.length && TABLE_RULE.test(lines[i + 1])) {
        const table = node("table");
        table.className = "md-table";
        const head = table.createTHead().insertRow();
        for (const c of cells(line)) inline(head.appendChild(node("th")), c).setAttribute("scope", "col");
        const body = table.createTBody();
        for (i += 2; i < lines.length && lines[i].includes("|") && lines[i].trim(); i++) {
          const row = body.insertRow();
          for (const c of cells(lines[i])) inline(row.insertCell(), c);
        }
        out.appendChild(table);
        continue;
      }
      const item = line.match(LIST_ITEM);
      if (item) {
        const ordered = /\d/.test(item[2]);
        const list = node(ordered ? "ol" : "ul");
        for (; i < lines.length; i++) {
          const m = lines[i].match(LIST_ITEM);
          if (!m) {
            if (lines[i].trim() && /^\s{2,}/.test(lines[i]) && list.lastChild) {  // a wrapped item
              inline(list.lastChild, " " + lines[i].trim());
              continue;
            }
            break;
          }
          const li = node("li");
          const task = m[3].match(/^\[([ xX])\]\s+(.*)$/);
          if (task) {
            li.className = "task";
            const mark = node("span", task[1] === " " ? "☐ " : "☑ ");
            mark.setAttribute("aria-hidden", "true");
            li.appendChild(mark);
            inline(li, task[2]);
          } else inline(li, m[3]);
          list.appendChild(li);
        }
        out.appendChild(list);
        continue;
      }
      const para = [];
      for (; i < lines.length && lines[i].trim() && !LIST_ITEM.test(lines[i]) && !/^(#{1,6}\s|\s*>|\s*```)/.test(lines[i]); i++) {
        para.push(lines[i].trim());
      }
      const p = node("p");
      para.forEach((text, k) => { if (k) p.appendChild(node("br")); inline(p, text); });
      out.appendChild(p);
    }
    return out;
  }

  window.GA.markdown = markdown;
})();
