// The web table: one game per browser tab (its id kept in this tab's sessionStorage).
// Every view comes from the server as the game's table description (hilo_env/table.py),
// the same one the rgb_array frames draw.
"use strict";

const $ = (id) => document.getElementById(id);
const state = { mode: "play", games: [], id: null, view: null, busy: false, timer: null,
                running: false, step: 0, episode: 0, viewer: "" };
const THINKING_AFTER_MS = 300;
// how long the page waits before each agent's move in play (?delay=MS changes it)
const AGENT_DELAY_MS = Number(new URLSearchParams(location.search).get("delay") ?? 500);

function el(tag, attrs = {}, text = "") {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, v);
  if (text) node.textContent = text;
  return node;
}

function say(text) {
  const box = $("message");
  box.textContent = text || "";
  box.hidden = !text;
}

async function api(method, path, body) {
  const options = { method, headers: {} };
  if (body !== undefined) {
    options.headers["Content-Type"] = "application/json";
    options.body = typeof body === "string" ? body : JSON.stringify(body);
  }
  let response;
  try {
    response = await fetch(path, options);
  } catch (err) {
    throw new Error("the server does not answer: is hilo serve still running?");
  }
  const data = await response.json().catch(() => ({ error: response.statusText }));
  if (!response.ok) {
    const error = new Error(data.error || `error ${response.status}`);
    error.status = response.status;
    throw error;
  }
  return data;
}

// ---- setup -------------------------------------------------------------------------

function currentGame() {
  return state.games.find((g) => g.name === $("game").value) || state.games[0];
}

function fillSelect(select, options, chosen) {
  select.replaceChildren(...options.map(([value, label]) => {
    const o = el("option", { value: String(value) }, label);
    if (String(value) === String(chosen)) o.selected = true;
    return o;
  }));
}

function refreshSetup() {
  const game = currentGame();
  fillSelect($("preset"), game.presets.map((p) => [p, p]), $("preset").value);
  const preset = $("preset").value;
  const seats = [];
  for (let n = game.min_players; n <= game.max_players; n++) seats.push([n, String(n)]);
  const players = game.players[preset];
  fillSelect($("players"), seats, players);
  refreshSeats();
  $("count-label").textContent = game.unit[0].toUpperCase() + game.unit.slice(1) + "s";
  $("about").textContent = `${game.title}: ${game.description}`;
}

function refreshSeats() {
  const game = currentGame();
  const n = Number($("players").value);
  const seat = Math.min(Number($("seat").value || 0), n - 1);
  fillSelect($("seat"), [...Array(n).keys()].map((s) => [s, `player_${s}`]), seat);
  const box = $("agents");
  const chosen = [...box.querySelectorAll("select")].map((s) => s.value);
  box.replaceChildren();
  for (let s = 0; s < n; s++) {
    const label = el("label", { class: "agent", "data-seat": String(s) }, `player_${s} `);
    const select = el("select", { id: `agent-${s}` });
    fillSelect(select, game.agents.map((a) => [a, a]), chosen[s] || game.baseline);
    label.append(select);
    box.append(label);
  }
  markPersonSeat();
}

function markPersonSeat() {
  const seat = Number($("seat").value);
  for (const label of $("agents").querySelectorAll("label")) {
    label.hidden = state.mode === "play" && Number(label.dataset.seat) === seat;
  }
}

function setMode(mode) {
  stopRunning();
  state.mode = mode;
  document.body.dataset.mode = mode;
  for (const b of document.querySelectorAll("#modes .mode")) {
    b.classList.toggle("on", b.dataset.mode === mode);
  }
  $("new-game").hidden = mode === "replay";
  $("replay-form").hidden = mode !== "replay";
  $("board").hidden = true;
  state.id = null;
  state.view = null;
  sessionStorage.removeItem("hilo-session");
  markPersonSeat();
  say("");
}

async function startMatch(event) {
  event.preventDefault();
  stopRunning();
  const n = Number($("players").value);
  const body = { game: currentGame().name, mode: state.mode, rules: $("preset").value,
                 players: n, count: Number($("count").value || 1),
                 agents: [...Array(n).keys()].map((s) => $(`agent-${s}`).value) };
  if (state.mode === "play") body.seat = Number($("seat").value);
  if ($("seed").value !== "") body.seed = Number($("seed").value);
  $("start").disabled = true;
  say("Dealing (an agent's model may take a few seconds to load)…");
  try {
    const data = await api("POST", "/api/matches", body);
    say("");
    adopt(data.id, data.view);
  } catch (err) {
    say(err.message);
  } finally {
    $("start").disabled = false;
  }
}

async function loadReplay() {
  const file = $("replay-file").files[0];
  if (!file) return;
  say("Reading the replay…");
  try {
    const data = await api("POST", "/api/replays", await file.text());
    say("");
    adopt(data.id, data.view);
  } catch (err) {
    say(err.message);
  }
}

function adopt(id, view) {
  state.id = id;
  sessionStorage.setItem("hilo-session", JSON.stringify({ id, mode: view.mode }));
  state.viewer = "";
  $("board").hidden = false;
  show(view);
  if (view.mode === "play") afterMove();
}

// ---- the table -----------------------------------------------------------------------

function cardNode(card) {
  if (card.hidden) return el("span", { class: "card back", title: "face down" });
  if (card.private) {
    return el("span", { class: `card ${card.colour} private`, title: "only you see this card" }, card.text);
  }
  return el("span", { class: `card ${card.colour}` }, card.text);
}

function show(view) {
  state.view = view;
  const table = view.table;
  document.body.dataset.mode = view.mode;
  $("headline").textContent = `${table.title} · ${table.headline}`;
  const seats = table.seats.map((seat, s) => {
    const who = view.labels && view.labels[s] ? view.labels[s] : "";
    const you = view.person === s;
    const box = el("div", { class: "seat" + (seat.to_act ? " to-act" : "") + (seat.out ? " out" : "")
                              + (you ? " you" : ""), "data-seat": String(s) });
    const head = el("div", { class: "seat-head" });
    head.append(el("span", { class: "name" }, seat.name));
    head.append(el("span", { class: "who" }, you ? "you" : who));
    if (seat.marks.includes("dealer")) head.append(el("span", { class: "dealer", title: "dealer (button)" }, "D"));
    if (seat.to_act) head.append(el("span", { class: "turn" }, "to act"));
    box.append(head);
    box.append(el("div", { class: "facts" }, seat.facts.join(" · ")));
    const cards = el("div", { class: "cards" });
    cards.append(...seat.cards.map(cardNode));
    box.append(cards);
    if (seat.note) box.append(el("div", { class: "note" }, seat.note));
    return box;
  });
  $("table").replaceChildren(...seats);
  const centre = $("centre");
  centre.replaceChildren();
  if (table.centre_label || table.centre.length) {
    centre.append(el("div", { class: "centre-label" }, table.centre_label));
    const cards = el("div", { class: "cards" });
    cards.append(...table.centre.map(cardNode));
    centre.append(cards);
  }
  $("status").textContent = table.status;
  $("result").replaceChildren(...table.result.map((line) => el("p", {}, line)));
  showActions(view);
  $("log").replaceChildren(...view.log.map((line) => el("li", {}, line)));
  const viewerOptions = [["", "nobody (a spectator)"],
                         ...table.seats.map((seat, s) => [s, seat.name])];
  fillSelect($("viewer"), viewerOptions, state.viewer);
  const where = view.mode === "replay" ? `?episode=${view.episode}&step=${view.step}` : "?";
  $("frame").href = `/api/sessions/${state.id}/frame.png${where}` +
    (state.viewer === "" ? "" : `&viewer=${state.viewer}`);
  if (view.mode === "replay") {
    state.episode = view.episode;
    state.step = view.step;
    $("step-label").textContent = `decision ${view.step} of ${view.steps}` +
      (view.next_action ? ` · next: ${view.next_action}` : " · the end");
    fillSelect($("episode"), [...Array(view.episodes).keys()].map((e) => [e, String(e + 1)]),
               view.episode);
    $("step-back").disabled = view.step === 0;
    $("step-first").disabled = view.step === 0;
    $("step-forward").disabled = view.over;
    $("step-last").disabled = view.over;
  } else {
    const next = $("next");
    next.hidden = !(view.over && !view.match_over);
    next.textContent = `Next ${view.unit} (${view.episode + 1} of ${view.episodes})`;
    $("download").href = `/api/sessions/${state.id}/replay`;
    $("step").disabled = view.over && view.match_over;
  }
}

function showActions(view) {
  const box = $("actions");
  box.replaceChildren();
  const legal = view.table.legal;
  if (!legal.length) return;
  const groups = {};
  for (const action of legal) {
    if (action.amount === null) {
      const b = el("button", { type: "button", class: "action", "data-action-id": String(action.id) }, action.text);
      b.addEventListener("click", () => act(action.id));
      box.append(b);
    } else {
      (groups[action.group] = groups[action.group] || []).push(action);
    }
  }
  for (const [group, actions] of Object.entries(groups)) {
    const wrap = el("span", { class: "range-group" });
    const range = el("input", { type: "range", id: `${group}-range`, min: "0",
                                max: String(actions.length - 1), value: "0", step: "1" });
    const button = el("button", { type: "button", class: "action", id: `${group}-button` });
    const label = () => {
      const chosen = actions[Number(range.value)];
      button.textContent = chosen.text;
      button.dataset.actionId = String(chosen.id);
    };
    range.addEventListener("input", label);
    button.addEventListener("click", () => act(Number(button.dataset.actionId)));
    label();
    wrap.append(el("span", {}, `${group} ${actions[0].amount}..${actions[actions.length - 1].amount}`), range, button);
    box.append(wrap);
  }
}

// ---- moves ---------------------------------------------------------------------------

function viewerQuery() {
  return state.viewer === "" ? "" : `?viewer=${state.viewer}`;
}

async function post(what, body) {
  if (state.busy) return null;
  state.busy = true;
  const view = state.view;
  const seat = view.table.to_act;
  const thinking = setTimeout(() => {
    if (what === "advance" && seat !== null && seat !== undefined) {
      $("thinking").textContent = `${view.table.seats[seat].name} (${view.labels[seat]}) is thinking…`;
      $("thinking").hidden = false;
    }
  }, THINKING_AFTER_MS);
  try {
    const fresh = await api("POST", `/api/sessions/${state.id}/${what}${viewerQuery()}`, body);
    say("");
    show(fresh);
    return fresh;
  } catch (err) {
    say(err.message);
    if (err.status === 409) await refresh();
    if (err.status === 404) stopRunning();
    return null;
  } finally {
    clearTimeout(thinking);
    $("thinking").hidden = true;
    state.busy = false;
  }
}

async function act(action) {
  const fresh = await post("act", { action, version: state.view.version });
  if (fresh) afterMove();
}

async function advance() {
  return post("advance", { version: state.view.version });
}

function afterMove() {
  // in play, the agents move one by one until the person's turn or the episode's end
  const view = state.view;
  if (view.mode !== "play" || view.waiting_for !== "agent") return;
  clearTimeout(state.timer);
  state.timer = setTimeout(async () => {
    const fresh = await advance();
    if (fresh) afterMove();
  }, AGENT_DELAY_MS);
}

async function refresh() {
  if (!state.id) return;
  try {
    let path = `/api/sessions/${state.id}${viewerQuery()}`;
    if (state.view && state.view.mode === "replay") {
      path = `/api/sessions/${state.id}?episode=${state.episode}&step=${state.step}` +
             (state.viewer === "" ? "" : `&viewer=${state.viewer}`);
    }
    show(await api("GET", path));
  } catch (err) {
    say(err.message);
    if (err.status === 404) {
      sessionStorage.removeItem("hilo-session");
      $("board").hidden = true;
    }
  }
}

// ---- watching ------------------------------------------------------------------------

function stopRunning() {
  state.running = false;
  clearTimeout(state.timer);
  $("play-pause").textContent = "Play";
}

async function tick() {
  if (!state.running) return;
  const view = state.view;
  if (view.over && view.match_over) { stopRunning(); return; }
  await advance();
  if (state.running) state.timer = setTimeout(tick, Number($("speed").value));
}

function togglePlay() {
  if (state.running) { stopRunning(); return; }
  state.running = true;
  $("play-pause").textContent = "Pause";
  tick();
}

// ---- replays -------------------------------------------------------------------------

function goTo(episode, step) {
  state.episode = episode;
  state.step = Math.max(0, step);
  refresh();
}

// ---- start ---------------------------------------------------------------------------

async function init() {
  state.games = await api("GET", "/api/games");
  fillSelect($("game"), state.games.map((g) => [g.name, g.title]), state.games[0].name);
  refreshSetup();
  $("game").addEventListener("change", () => { $("preset").value = ""; refreshSetup(); });
  $("preset").addEventListener("change", refreshSetup);
  $("players").addEventListener("change", refreshSeats);
  $("seat").addEventListener("change", markPersonSeat);
  $("new-game").addEventListener("submit", startMatch);
  $("replay-file").addEventListener("change", loadReplay);
  for (const b of document.querySelectorAll("#modes .mode")) {
    b.addEventListener("click", () => setMode(b.dataset.mode));
  }
  $("play-pause").addEventListener("click", togglePlay);
  $("step").addEventListener("click", () => { stopRunning(); advance(); });
  $("next").addEventListener("click", async () => {
    const fresh = await advance();
    if (fresh) afterMove();
  });
  const speed = () => { $("speed-label").textContent = `${(Number($("speed").value) / 1000).toFixed(1)} s a move`; };
  $("speed").addEventListener("input", speed);
  speed();
  $("step-back").addEventListener("click", () => goTo(state.episode, state.step - 1));
  $("step-forward").addEventListener("click", () => goTo(state.episode, state.step + 1));
  $("step-first").addEventListener("click", () => goTo(state.episode, 0));
  $("step-last").addEventListener("click", () => goTo(state.episode, state.view.steps));
  $("episode").addEventListener("change", () => goTo(Number($("episode").value), 0));
  $("viewer").addEventListener("change", () => { state.viewer = $("viewer").value; refresh(); });
  const kept = JSON.parse(sessionStorage.getItem("hilo-session") || "null");
  setMode(kept ? kept.mode : "play");
  if (kept) {
    sessionStorage.setItem("hilo-session", JSON.stringify(kept));
    state.id = kept.id;
    $("board").hidden = false;
    await refresh();
  }
}

init().catch((err) => say(err.message));
