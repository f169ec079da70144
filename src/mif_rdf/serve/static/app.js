// The page of `mif-rdf serve`: overview, query editor, memory view.  No
// libraries, nothing fetched from anywhere but this server.  Every value from
// the bundle is written as text (textContent) or escaped before it becomes
// HTML, so a memory cannot put markup or scripts on the page.
"use strict";

const state = { generation: -1, overview: null, memory: null, examples: [] };
const $ = (id) => document.getElementById(id);

function el(tag, attrs, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs || {})) {
    if (key === "class") node.className = value;
    else if (key.startsWith("on")) node.addEventListener(key.slice(2), value);
    else node.setAttribute(key, value);
  }
  for (const child of children.flat()) {
    if (child === null || child === undefined) continue;
    node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return node;
}

async function api(name, params) {
  const query = params ? "?" + new URLSearchParams(params) : "";
  const response = await fetch("/api/" + name + query, { headers: { Accept: "application/json" } });
  if (!response.ok) throw new Error((await response.text()).trim());
  return response.json();
}

// -- navigation -----------------------------------------------------------------
function route() {
  const hash = decodeURIComponent(location.hash.slice(2));
  const [tab, ...rest] = hash.split("/");
  const name = ["overview", "query", "memory"].includes(tab) ? tab : "overview";
  for (const section of document.querySelectorAll("section.tab")) section.hidden = section.id !== name;
  for (const link of document.querySelectorAll("nav a")) link.classList.toggle("active", link.dataset.tab === name);
  if (name === "memory" && rest.length) openMemory(rest.join("/"));
}

function memoryLink(iri, label) {
  const id = iri.startsWith("urn:mif:") ? iri.slice("urn:mif:".length) : iri;
  return el("a", { href: "#/memory/" + encodeURIComponent(id), class: "memory-link" }, label || iri);
}

// -- overview --------------------------------------------------------------------------
async function loadOverview() {
  const data = await api("overview");
  state.overview = data;
  $("folder").textContent = data.folder.split(/[\\/]/).filter(Boolean).pop() || data.folder;
  $("folder").title = data.folder;
  $("summary").textContent = `${data.memories} memories, ${data.triples} triples, base ${data.base}`;
  $("prefixes").textContent = Object.keys(data.prefixes).map((p) => p + ":").join(" ");
  fillCounts($("by-type"), data.by_type);
  fillCounts($("by-namespace"), data.by_namespace);
  const problems = data.problems;
  $("problem-count").textContent = `(${problems.length})`;
  $("problems").replaceChildren(problems.length ? problemList(problems, true) : el("p", { class: "muted" }, "No problems."));
  renderMemoryList();
}

function fillCounts(table, counts) {
  table.replaceChildren(...Object.entries(counts).map(([name, n]) => el("tr", {}, el("td", {}, name), el("td", { class: "n" }, n))));
}

function problemList(problems, withFile) {
  const byPath = new Map((state.overview ? state.overview.list : []).map((m) => [m.path, m]));
  return el("ul", { class: "findings" }, problems.map((p) => {
    const memory = byPath.get(p.path);
    const file = withFile ? (memory ? memoryLink(memory.iri, p.path) : el("code", {}, p.path)) : null;
    const where = p.line ? ` line ${p.line}` : "";
    const key = p.key ? `${p.key}: ` : "";
    const value = p.value !== undefined ? ` (value: ${JSON.stringify(p.value)})` : "";
    return el("li", { class: "finding" },
      el("span", { class: "severity-" + p.severity }, p.severity), " ", file, where, withFile ? " — " : where ? ": " : "",
      key + p.message + value, p.rule ? el("span", { class: "muted" }, `  [${p.rule}]`) : null);
  }));
}

function renderMemoryList() {
  if (!state.overview) return;
  const needle = $("filter").value.toLowerCase();
  const rows = state.overview.list.filter((m) => !needle || (m.title || "").toLowerCase().includes(needle) || m.path.toLowerCase().includes(needle));
  $("memories").replaceChildren(
    el("thead", {}, el("tr", {}, el("th", {}, "title"), el("th", {}, "type"), el("th", {}, "path"))),
    el("tbody", {}, rows.map((m) => el("tr", {}, el("td", {}, memoryLink(m.iri, m.title || m.id)), el("td", {}, m.type || ""), el("td", {}, el("code", {}, m.path))))),
  );
}

// -- query -------------------------------------------------------------------------------
async function loadExamples() {
  state.examples = await api("examples");
  $("examples").replaceChildren(el("option", { value: "" }, "choose an example…"),
    ...state.examples.map((e, i) => el("option", { value: String(i) }, `${i + 1}. ${e.title}`)));
  if (!$("editor").value) $("editor").value = state.examples[0].query;
}

const MAX_ROWS = 1000;

async function runQuery() {
  const query = $("editor").value;
  $("query-status").textContent = "running…";
  const started = performance.now();
  const response = await fetch("/query", {
    method: "POST",
    headers: { "Content-Type": "application/sparql-query", Accept: "application/sparql-results+json, text/turtle;q=0.9" },
    body: query,
  });
  const text = await response.text();
  const took = Math.round(performance.now() - started);
  if (!response.ok) {
    $("query-status").textContent = `error ${response.status}`;
    $("results").replaceChildren(el("p", { class: "error-box" }, text));
    return;
  }
  if ((response.headers.get("Content-Type") || "").startsWith("text/turtle")) {
    $("query-status").textContent = `graph result in ${took} ms`;
    $("results").replaceChildren(el("pre", { class: "frontmatter" }, text));
    return;
  }
  const data = JSON.parse(text);
  if ("boolean" in data) {
    $("query-status").textContent = `answered in ${took} ms`;
    $("results").replaceChildren(el("p", { id: "ask-answer" }, String(data.boolean)));
    return;
  }
  const vars = data.head.vars;
  const all = data.results.bindings;
  const rows = all.slice(0, MAX_ROWS);  // the page shows at most MAX_ROWS rows: a table of millions would stall the browser
  $("query-status").textContent = `${all.length} row${all.length === 1 ? "" : "s"} in ${took} ms` +
    (all.length > rows.length ? ` (the first ${MAX_ROWS} shown: add LIMIT/OFFSET, or ask the endpoint for CSV)` : "");
  $("results").replaceChildren(el("table", { class: "results", id: "result-table" },
    el("thead", {}, el("tr", {}, vars.map((v) => el("th", {}, v)))),
    el("tbody", {}, rows.map((row) => el("tr", {}, vars.map((v) => el("td", {}, termNode(row[v]))))))));
}

function termNode(term) {
  if (!term) return "";
  if (term.type === "uri") {
    if (term.value.startsWith("urn:mif:") && !term.value.startsWith("urn:mif:entity:")) return memoryLink(term.value);
    if (/^https?:\/\//.test(term.value)) return el("a", { href: term.value, rel: "noreferrer", target: "_blank" }, shortIri(term.value));
    return term.value;
  }
  if (term.type === "bnode") return "_:" + term.value;
  return term.value;
}

function shortIri(iri) {
  const prefixes = state.overview ? state.overview.prefixes : {};
  for (const [prefix, ns] of Object.entries(prefixes)) if (iri.startsWith(ns) && iri !== ns) return prefix + ":" + iri.slice(ns.length);
  return iri;
}

// -- memory view ---------------------------------------------------------------------------
async function openMemory(id) {
  let data;
  try {
    data = await api("memory", { id });
  } catch (error) {
    $("memory-view").replaceChildren(el("p", { class: "error-box" }, error.message));
    return;
  }
  state.memory = data;
  const links = (list, direction) => list.length
    ? el("ul", { class: "findings " + direction }, list.map((l) => el("li", {}, el("span", { class: "badge" }, l.type), " ", memoryLink(l.iri, l.title || l.iri))))
    : el("p", { class: "muted" }, "none");
  $("memory-view").replaceChildren(
    el("div", { class: "memory-head" },
      el("h2", { id: "memory-title" }, data.title || data.id),
      el("p", {}, el("span", { class: "badge" }, data.frontmatter.type || "?"), data.kept ? el("span", { class: "badge kept" }, "last good version") : null,
        el("span", { class: "path" }, data.path), el("span", { class: "muted" }, "  " + data.iri))),
    el("div", { class: "memory-grid" },
      el("div", {},
        el("h3", {}, "Content"), el("div", { class: "markdown", id: "memory-body" }, renderMarkdown(data.body, data.path)),
        el("h3", {}, `Triples (${data.triples.length})`),
        el("table", { class: "results triples" }, el("tbody", {}, data.triples.map((t) => el("tr", {}, t.map((term) => el("td", {}, tripleTerm(term)))))))),
      el("div", {},
        el("h3", {}, "Findings"), data.problems.length ? problemList(data.problems, false) : el("p", { class: "muted", id: "no-findings" }, "No findings."),
        el("h3", {}, "Outgoing links"), links(data.outgoing, "outgoing"),
        el("h3", {}, "Incoming links"), links(data.incoming, "incoming"),
        el("h3", {}, "Frontmatter"), el("pre", { class: "frontmatter" }, JSON.stringify(data.frontmatter, null, 2)))));
}

function tripleTerm(term) {
  if (term.type === "iri") return term.value.startsWith("urn:mif:") && !term.value.startsWith("urn:mif:entity:") ? memoryLink(term.value) : shortIri(term.value);
  if (term.type === "bnode") return "_:" + term.value.slice(0, 8);
  return JSON.stringify(term.value) + (term.lang ? "@" + term.lang : term.datatype ? "^^" + shortIri(term.datatype) : "");
}

// -- markdown (a small, safe subset: headings, lists, quotes, code, emphasis, links) ----------------
function escapeHtml(text) {
  return text.replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]);
}

function resolvePath(from, target) {
  const parts = target.startsWith("/") ? [] : from.split("/").slice(0, -1);
  for (const part of target.replace(/^\//, "").split("/")) {
    if (part === "..") parts.pop();
    else if (part !== "." && part !== "") parts.push(part);
  }
  return parts.join("/");
}

function inline(text, from) {
  const byPath = new Map((state.overview ? state.overview.list : []).map((m) => [m.path, m]));
  return escapeHtml(text)
    .replace(/`([^`]+)`/g, "<code>$1</code>")
    .replace(/\*\*([^*]+)\*\*/g, "<strong>$1</strong>")
    .replace(/(^|[^*])\*([^*\s][^*]*)\*/g, "$1<em>$2</em>")
    .replace(/\[([^\]]+)\]\(([^)\s]+)\)/g, (all, label, href) => {
      const raw = href.replace(/&amp;/g, "&");
      const target = byPath.get(resolvePath(from, raw.split("#")[0]));
      if (target) return `<a class="memory-link" href="#/memory/${encodeURIComponent(target.id)}">${label}</a>`;
      if (/^(https?:|mailto:)/i.test(raw)) return `<a href="${href}" rel="noreferrer" target="_blank">${label}</a>`;
      return `<span title="${href}">${label}</span>`;
    });
}

function renderMarkdown(source, from) {
  const html = [];
  let list = null, para = [], code = null;
  const flush = () => {
    if (para.length) html.push("<p>" + para.map((l) => inline(l, from)).join(" ") + "</p>");
    para = [];
    if (list) html.push(`</${list}>`);
    list = null;
  };
  for (const line of source.split("\n")) {
    if (code !== null) {
      if (line.startsWith("```")) { html.push("<pre><code>" + escapeHtml(code.join("\n")) + "</code></pre>"); code = null; }
      else code.push(line);
      continue;
    }
    let m;
    if (line.startsWith("```")) { flush(); code = []; }
    else if ((m = /^(#{1,6})\s+(.*)$/.exec(line))) {  // page headings are h1-h3: a memory's # is shown as h3
      flush();
      const level = Math.min(m[1].length + 2, 6);
      html.push(`<h${level}>${inline(m[2], from)}</h${level}>`);
    }
    else if ((m = /^\s*(?:[-*]|(\d+)\.)\s+(.*)$/.exec(line))) {
      const kind = m[1] ? "ol" : "ul";
      if (para.length) { html.push("<p>" + para.map((l) => inline(l, from)).join(" ") + "</p>"); para = []; }
      if (list !== kind) { if (list) html.push(`</${list}>`); html.push(`<${kind}>`); list = kind; }
      html.push("<li>" + inline(m[2], from) + "</li>");
    }
    else if (list && /^\s+\S/.test(line)) {  // a list item's continuation line
      html[html.length - 1] = html[html.length - 1].replace(/<\/li>$/, " " + inline(line.trim(), from) + "</li>");
    }
    else if ((m = /^>\s?(.*)$/.exec(line))) { flush(); html.push("<blockquote>" + inline(m[1], from) + "</blockquote>"); }
    else if (!line.trim()) flush();
    else { if (list) { html.push(`</${list}>`); list = null; } para.push(line); }
  }
  if (code !== null) html.push("<pre><code>" + escapeHtml(code.join("\n")) + "</code></pre>");
  flush();
  const box = document.createElement("div");
  box.innerHTML = html.join("\n");  // built only from escaped text above
  return box;
}

// -- live updates -------------------------------------------------------------------------
async function poll() {
  try {
    const status = await api("status");
    $("live").textContent = `live · change ${status.generation}`;
    if (status.generation !== state.generation) {
      const first = state.generation === -1;
      state.generation = status.generation;
      await loadOverview();
      if (!first && state.memory && !$("memory").hidden) openMemory(state.memory.id);
    }
  } catch (error) {
    $("live").textContent = "server unreachable";
  }
}

$("filter").addEventListener("input", renderMemoryList);
$("run").addEventListener("click", runQuery);
$("examples").addEventListener("change", (event) => {
  const example = state.examples[Number(event.target.value)];
  if (example) $("editor").value = example.query;
});
$("editor").addEventListener("keydown", (event) => { if (event.key === "Enter" && (event.ctrlKey || event.metaKey)) runQuery(); });
window.addEventListener("hashchange", route);
(async () => {
  await poll();
  await loadExamples();
  route();
  setInterval(poll, 2000);
})();
