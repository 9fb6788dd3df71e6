// The status page: polls /api/status once a second, draws the plots, and runs admin commands
// after a login. Everything shown is inserted as text, never as HTML (callsigns and chat come
// from players).
"use strict";

const $ = (id) => document.getElementById(id);
let loggedIn = false;

function fmt(v, digits) {
  return Number.isFinite(v) ? v.toFixed(digits) : "–";
}

// One series on one canvas: a line over a light grid, the scale's top written at the right.
function plot(canvas, values, color, floor, digits) {
  const dpr = window.devicePixelRatio || 1;
  const w = canvas.clientWidth, h = canvas.clientHeight;
  canvas.width = Math.max(1, Math.round(w * dpr));
  canvas.height = Math.max(1, Math.round(h * dpr));
  const g = canvas.getContext("2d");
  g.setTransform(dpr, 0, 0, dpr, 0, 0);
  g.clearRect(0, 0, w, h);
  const top = Math.max(floor, ...values.filter(Number.isFinite)) * 1.1;
  g.strokeStyle = "#2b3744";
  g.lineWidth = 1;
  for (let i = 0; i <= 2; i++) {
    const y = Math.round(4 + ((h - 8) * i) / 2) + 0.5;
    g.beginPath(); g.moveTo(0, y); g.lineTo(w, y); g.stroke();
  }
  g.fillStyle = "#8796a5";
  g.font = "10px system-ui";
  g.textAlign = "right";
  g.fillText(fmt(top, digits), w - 2, 13);
  g.fillText("0", w - 2, h - 6);
  if (values.length > 0) {
    g.strokeStyle = color;
    g.lineWidth = 2;
    g.beginPath();
    values.forEach((v, i) => {
      const x = values.length === 1 ? w : (i / (values.length - 1)) * (w - 30);
      const y = h - 4 - (Math.max(0, Number.isFinite(v) ? v : 0) / top) * (h - 8);
      if (i === 0) g.moveTo(x, y); else g.lineTo(x, y);
    });
    g.stroke();
  }
  canvas.dataset.points = String(values.length);
}

function span(hist) {
  if (hist.length < 2) return "";
  const s = hist[hist.length - 1].t_s - hist[0].t_s;
  return "last " + (s >= 120 ? Math.round(s / 60) + " min" : Math.round(s) + " s");
}

function placeholder(list, text, columns) {
  const el = document.createElement(columns ? "tr" : "li");
  const cell = columns ? document.createElement("td") : el;
  if (columns) { cell.colSpan = columns; el.appendChild(cell); }
  cell.className = "empty";
  cell.textContent = text;
  list.replaceChildren(el);
}

function fillLines(list, items, render) {
  list.replaceChildren(...items.slice().reverse().map((it) => {
    const li = document.createElement("li");
    li.textContent = render(it);
    return li;
  }));
}

function render(doc) {
  $("name").textContent = doc.name || "fl-server";
  document.title = (doc.name || "fl-server") + " — status";
  $("tick-hz").textContent = fmt(doc.tick_hz, 1);
  $("tick-p99").textContent = fmt(doc.tick_p99_ms, 2);
  $("players-count").textContent = String(doc.players.length);
  $("entities").textContent = String(doc.entities);
  $("world-tick").textContent = String(doc.world_tick);
  $("paused").textContent = doc.paused ? "PAUSED" : "";
  $("paused").className = doc.paused ? "stat warn" : "stat";
  const hist = doc.history;
  plot($("plot-tick"), hist.map((s) => s.tick_p99_ms), "#63b3ff", 2, 1);
  plot($("plot-hz"), hist.map((s) => s.tick_hz), "#5fd38d", 60, 0);
  plot($("plot-players"), hist.map((s) => s.players), "#f0b84b", 4, 0);
  plot($("plot-kbps"), hist.map((s) => s.kbps), "#c792ea", 100, 0);
  $("now-p99").textContent = fmt(doc.tick_p99_ms, 2);
  $("now-hz").textContent = fmt(doc.tick_hz, 1);
  $("now-players").textContent = String(doc.players.length);
  $("now-kbps").textContent = fmt(doc.players.reduce((a, p) => a + p.kbps, 0), 0);
  $("span-tick").textContent = span(hist);
  $("span-net").textContent = span(hist);
  $("plot-tick").dataset.updates = String(doc.updates);
  const rows = doc.players.map((p) => {
    const tr = document.createElement("tr");
    const cells = [
      [p.callsign + (p.observer ? " (observer)" : ""), ""],
      [p.team, ""],
      [fmt(p.ping_ms, 0), "num " + (p.ping_ms > 250 ? "bad" : p.ping_ms > 120 ? "warn" : "")],
      [fmt(p.loss * 100, 1) + " %", "num " + (p.loss > 0.05 ? "bad" : p.loss > 0.01 ? "warn" : "")],
      [fmt(p.kbps, 0), "num"],
    ];
    for (const [text, cls] of cells) {
      const td = document.createElement("td");
      td.textContent = text;
      td.className = cls;
      tr.appendChild(td);
    }
    return tr;
  });
  if (rows.length) $("players").replaceChildren(...rows);
  else placeholder($("players"), "No players connected", 5);
  if (doc.chat.length) {
    fillLines($("chat"), doc.chat, (c) =>
      c.channel === "system" ? "* " + c.text : "[" + c.channel + "] " + c.from + ": " + c.text);
  } else placeholder($("chat"), "No chat yet");
  if (doc.kills.length) {
    fillLines($("kills"), doc.kills, (k) =>
      (k.killer ? k.killer + " ▸ " + k.victim : k.victim + " crashed") +
      (k.weapon ? " (" + k.weapon + ")" : "") + (k.team_kill ? " [team kill]" : ""));
  } else placeholder($("kills"), "No kills yet");
  $("admin-off").classList.toggle("hidden", doc.admin_enabled);
  $("login-form").classList.toggle("hidden", !doc.admin_enabled || loggedIn);
  $("command-form").classList.toggle("hidden", !doc.admin_enabled || !loggedIn);
}

async function poll() {
  try {
    const r = await fetch("/api/status", { cache: "no-store" });
    if (!r.ok) throw new Error("HTTP " + r.status);
    render(await r.json());
    $("conn").textContent = "live";
    $("conn").className = "stat ok";
  } catch (e) {
    $("conn").textContent = "server unreachable";
    $("conn").className = "stat down";
  }
}

async function post(path, body) {
  const r = await fetch(path, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify(body),
    credentials: "same-origin",
  });
  let data = {};
  try { data = await r.json(); } catch (e) { /* an empty or non-JSON answer */ }
  return { status: r.status, data };
}

function show(text) {
  $("admin-output").textContent = text;
}

$("login-form").addEventListener("submit", async (ev) => {
  ev.preventDefault();
  const { status, data } = await post("/api/login", { token: $("token").value });
  $("token").value = "";
  if (status === 200) {
    loggedIn = true;
    show("logged in");
  } else {
    show("login refused: " + (data.error || "HTTP " + status));
  }
  poll();
});

$("command-form").addEventListener("submit", async (ev) => {
  ev.preventDefault();
  const command = $("command").value;
  const { status, data } = await post("/api/admin", { command });
  if (status === 200) {
    show("> " + command + "\n" + (data.output || "(done)"));
    $("command").value = "";
  } else {
    if (status === 401) loggedIn = false;
    show("> " + command + "\nrefused: " + (data.error || "HTTP " + status));
  }
  poll();
});

$("logout").addEventListener("click", async () => {
  await post("/api/logout", {});
  loggedIn = false;
  show("logged out");
  poll();
});

poll();
setInterval(poll, 1000);
