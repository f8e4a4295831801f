// The web table: one game per browser tab (its id kept in this tab's sessionStorage).
// Every view comes from the server as the game's table description (hilo_env/table.py),
// the same one the rgb_array frames draw.
"use strict";

const $ = (id) => document.getElementById(id);
const state = { mode: "play", games: [], id: null, view: null, busy: false, timer: null,
                running: false, step: 0, episode: 0, viewer: "",
                lastMatch: null, fits: {}, series: {} };
const THINKING_AFTER_MS = 300;
const query = new URLSearchParams(location.search);
// how long the page waits before each agent's move in play (?delay=MS sets the first choice)
const DELAY_FROM_QUERY = query.get("delay");
// a server beyond the loopback takes API calls with its token only (hilo serve --public)
const TOKEN = query.get("token") || sessionStorage.getItem("hilo-token") || "";
if (TOKEN) sessionStorage.setItem("hilo-token", TOKEN);
const SUIT_ORDER = "SHCD";

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

function withToken(path) {
  if (!TOKEN) return path;
  return path + (path.includes("?") ? "&" : "?") + `token=${encodeURIComponent(TOKEN)}`;
}

async function api(method, path, body) {
  const options = { method, headers: {} };
  if (TOKEN) options.headers["X-Hilo-Token"] = TOKEN;
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
  const counts = game.seats[preset];
  const kept = Number($("players").value);
  fillSelect($("players"), counts.map((n) => [n, String(n)]),
             counts.includes(kept) ? kept : game.players[preset]);
  refreshSeats();
  $("count-label").textContent = game.unit[0].toUpperCase() + game.unit.slice(1) + "s";
  $("about").textContent = `${game.title}: ${game.description}`;
}

function fitKey(game, preset, players) {
  return `${game.name}/${preset}/${players}`;
}

async function refreshSeats() {
  // the seats at once with every agent of the game (or those known to fit), then only
  // those that fit once the server has asked them (a model's first check takes seconds)
  const game = currentGame();
  const preset = $("preset").value;
  const n = Number($("players").value);
  const seat = Math.min(Number($("seat").value || 0), n - 1);
  fillSelect($("seat"), [...Array(n).keys()].map((s) => [s, `player_${s}`]), seat);
  const key = fitKey(game, preset, n);
  seatAgents(game, n, state.fits[key] || { agents: game.agents, refused: {} });
  if (state.fits[key]) return;
  try {
    state.fits[key] = await api("GET", `/api/agents?game=${encodeURIComponent(game.name)}` +
                                `&rules=${encodeURIComponent(preset)}&players=${n}`);
  } catch (err) {
    say(err.message);
    return;
  }
  if (fitKey(currentGame(), $("preset").value, Number($("players").value)) !== key) return;
  seatAgents(game, n, state.fits[key]);
}

function seatAgents(game, n, fit) {
  const box = $("agents");
  const chosen = box.dataset.game === game.name
    ? [...box.querySelectorAll("select")].map((s) => s.value) : [];
  box.dataset.game = game.name;
  box.dataset.fitted = String(fit.agents !== game.agents);
  const refused = Object.keys(fit.refused);
  box.replaceChildren();
  for (let s = 0; s < n; s++) {
    const label = el("label", { class: "agent", "data-seat": String(s) }, `player_${s} `);
    const select = el("select", { id: `agent-${s}` });
    const pick = fit.agents.includes(chosen[s]) ? chosen[s]
      : fit.agents.includes(game.baseline) ? game.baseline : fit.agents[0];
    fillSelect(select, fit.agents.map((a) => [a, a]), pick);
    if (refused.length) select.title = `Not offered at this table: ${refused.join(", ")}`;
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

function matchRequest() {
  const n = Number($("players").value);
  const body = { game: currentGame().name, mode: state.mode, rules: $("preset").value,
                 players: n, count: Number($("count").value || 1),
                 agents: [...Array(n).keys()].map((s) => $(`agent-${s}`).value) };
  if (state.mode === "play") body.seat = Number($("seat").value);
  if ($("seed").value !== "") body.seed = Number($("seed").value);
  return body;
}

async function startMatch(event) {
  if (event) event.preventDefault();
  await deal(matchRequest());
}

async function deal(body) {
  stopRunning();
  $("start").disabled = true;
  say("Dealing (an agent's model may take a few seconds to load)…");
  try {
    const data = await api("POST", "/api/matches", body);
    say("");
    state.lastMatch = body;
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

function suitOf(card) {
  const match = /^(?:\d+|[JQKA])([SHCD])$/.exec(card.text || "");
  return match ? match[1] : null;
}

function grouped(cards, game) {
  // Hi MiLo! is played by suit: a hand shows its suits together (each in rank order)
  if (game !== "himilo" || cards.some((c) => !c.hidden && !suitOf(c))) return cards;
  return [...cards].sort((a, b) => SUIT_ORDER.indexOf(suitOf(a)) - SUIT_ORDER.indexOf(suitOf(b)));
}

function seatNode(view, seat, s) {
  const who = view.labels && view.labels[s] ? view.labels[s] : "";
  const you = view.person === s;
  const box = el("div", { class: "seat" + (seat.to_act ? " to-act" : "") + (seat.out ? " out" : "")
                            + (you ? " you" : ""), "data-seat": String(s) });
  const head = el("div", { class: "seat-head" });
  head.append(el("span", { class: "name" }, seat.name));
  head.append(el("span", { class: "who", title: who }, you ? "you" : who));
  if (seat.marks.includes("dealer")) head.append(el("span", { class: "dealer", title: "dealer (button)" }, "D"));
  if (seat.to_act) head.append(el("span", { class: "turn" }, "to act"));
  box.append(head);
  box.append(el("div", { class: "facts" }, seat.facts.join(" · ")));
  const last = view.last_actions && view.last_actions[s];
  if (last) box.append(el("div", { class: "last-action" }, `last: ${last}`));
  const cards = el("div", { class: "cards" });
  cards.append(...grouped(seat.cards, view.game).map(cardNode));
  box.append(cards);
  if (seat.note) box.append(el("div", { class: "note" }, seat.note));
  return box;
}

function showCentre(view) {
  // a finished trick (the server's last_centre) stays in view until the next one starts
  const table = view.table;
  const centre = $("centre");
  centre.replaceChildren();
  const last = !table.centre.length && view.last_centre;
  const label = last ? `last: ${view.last_centre.label}` : table.centre_label;
  const cards = last ? view.last_centre.cards : table.centre;
  centre.classList.toggle("last", Boolean(last));
  if (label || cards.length) {
    centre.append(el("div", { class: "centre-label" }, label));
    const box = el("div", { class: "cards" });
    box.append(...cards.map(cardNode));
    centre.append(box);
  }
}

function show(view) {
  state.view = view;
  const table = view.table;
  document.body.dataset.mode = view.mode;
  const ended = view.match_over && view.episode < view.episodes
    ? ` · the match is over after ${view.episode} of ${view.episodes} ${view.unit}s` : "";
  $("headline").textContent = `${table.title} · ${table.headline}${ended}`;
  $("table").replaceChildren(...table.seats.map((seat, s) => seatNode(view, seat, s)));
  $("legend-dealer").hidden = !table.seats.some((seat) => seat.marks.includes("dealer"));
  showCentre(view);
  $("status").textContent = table.status;
  $("result").replaceChildren(...table.result.map((line) => el("p", {}, line)));
  showActions(view);
  showThought(view);
  showScores(view);
  const log = $("log");
  log.replaceChildren(...view.log.map((line) => el("li", {}, line)));
  log.scrollTop = log.scrollHeight;  // the newest line in sight
  const viewerOptions = [["", "nobody (a spectator)"],
                         ...table.seats.map((seat, s) => [s, seat.name])];
  fillSelect($("viewer"), viewerOptions, state.viewer);
  const where = view.mode === "replay" ? `?episode=${view.episode}&step=${view.step}` : "?";
  $("frame").href = withToken(`/api/sessions/${state.id}/frame.png${where}` +
    (state.viewer === "" ? "" : `&viewer=${state.viewer}`));
  if (view.mode === "replay") {
    state.episode = view.episode;
    state.step = view.step;
    $("about").textContent = `${view.title}: ${view.description}`;
    $("step-label").textContent = `decision ${view.step} of ${view.steps}` +
      (view.next_action ? ` · next: ${view.next_action}` : " · the end");
    fillSelect($("episode"), [...Array(view.episodes).keys()].map((e) => [e, String(e + 1)]),
               view.episode);
    const timeline = $("timeline");
    timeline.max = String(view.steps);
    timeline.value = String(view.step);
    $("step-back").disabled = view.step === 0;
    $("step-first").disabled = view.step === 0;
    $("step-forward").disabled = view.over;
    $("step-last").disabled = view.over;
  } else {
    const next = $("next");
    next.hidden = !(view.over && !view.match_over);
    next.textContent = `Next ${view.unit} (${view.episode + 1} of ${view.episodes})`;
    $("rematch").hidden = !(view.match_over && state.lastMatch);
    $("download").hidden = !view.replay_ready;
    $("download").href = withToken(`/api/sessions/${state.id}/replay`);
    $("step").disabled = view.over && view.match_over;
  }
}

function showThought(view) {
  const box = $("thought");
  const thought = view.thought;
  box.hidden = !thought;
  if (!thought) return;
  const seat = view.table.seats[thought.seat];
  const chose = thought.probabilities.length ? " chose from:" : "";
  box.replaceChildren(el("div", { class: "thought-head" },
                         `${seat ? seat.name : ""} (${thought.agent})${chose}`));
  for (const { action, p } of thought.probabilities) {
    const row = el("div", { class: "prob" });
    const bar = el("span", { class: "bar" });
    bar.style.width = `${Math.round(p * 100)}%`;
    row.append(el("span", { class: "prob-action" }, action), el("span", { class: "bar-box" }),
               el("span", { class: "prob-p" }, `${(p * 100).toFixed(1)}%`));
    row.querySelector(".bar-box").append(bar);
    box.append(row);
  }
  if (thought.value !== undefined) {
    box.append(el("div", { class: "thought-value" },
                  `${thought.value_label}: ${thought.value.toFixed(2)}`));
  }
}

function showScores(view) {
  const box = $("scores");
  const scores = view.scores || [];
  box.hidden = !scores.length;
  if (!scores.length) return;
  const names = view.table.seats.map((seat) => seat.name);
  const head = el("tr");
  head.append(el("th", {}, view.unit), ...names.map((n) => el("th", {}, n)));
  const rows = scores.map((row, e) => {
    const tr = el("tr");
    tr.append(el("td", {}, String(e + 1)), ...row.map((v) => el("td", {}, fmt(v))));
    return tr;
  });
  const sums = names.map((_, s) => scores.reduce((a, r) => a + r[s], 0));
  const total = el("tr", { class: "total" });
  total.append(el("td", {}, "total"), ...sums.map((v) => el("td", {}, fmt(v))));
  const lines = [el("caption", {}, "Scores"), head, ...rows, total];
  if (view.match_over && state.lastMatch) {
    // matches of the same settings (Rematch) add up, in this tab
    const key = JSON.stringify({ ...state.lastMatch, seed: undefined });
    const series = state.series[key] || (state.series[key] = { ids: [], sums: sums.map(() => 0) });
    if (!series.ids.includes(state.id)) {
      series.ids.push(state.id);
      series.sums = series.sums.map((v, s) => v + sums[s]);
    }
    if (series.ids.length > 1) {
      const across = el("tr", { class: "total" });
      across.append(el("td", {}, `${series.ids.length} matches`),
                    ...series.sums.map((v) => el("td", {}, fmt(v))));
      lines.push(across);
    }
  }
  box.replaceChildren(...lines);
}

function fmt(value) {
  return Number.isInteger(value) ? (value > 0 ? `+${value}` : String(value))
    : (value > 0 ? "+" : "") + value.toFixed(2);
}

function cardsOf(view, text) {
  // lo-hi's actions name ranks: say which of the person's cards leave the hand (the first
  // of each rank in the hand's order)
  if (view.person === null || view.person === undefined) return "";
  const words = text.split(" ");
  if (words[0] !== "play" || words.length < 2) return "";
  const hand = view.table.seats[view.person].cards.filter((c) => !c.hidden).map((c) => c.text);
  if (words.slice(1).some((w) => hand.includes(w))) return "";
  const left = [...hand];
  const taken = [];
  for (const rank of words.slice(1)) {
    const i = left.findIndex((card) => card.slice(0, -1) === rank);
    if (i < 0) return "";
    taken.push(left[i]);
    left.splice(i, 1);
  }
  return ` (${taken.join(" ")})`;
}

function actionButton(view, action, key) {
  const b = el("button", { type: "button", class: "action", "data-action-id": String(action.id) },
               action.text + cardsOf(view, action.text));
  if (key) {
    b.dataset.key = key;
    b.prepend(el("kbd", {}, key));
  }
  b.addEventListener("click", (event) => {
    if (event.detail > 1) return;  // the second click of a double click: one move only
    act(action.id);
  });
  return b;
}

function showActions(view) {
  const box = $("actions");
  box.replaceChildren();
  const legal = view.table.legal;
  if (!legal.length) return;
  const groups = {};
  let key = 0;
  for (const action of legal) {
    if (action.amount === null) {
      key += 1;
      box.append(actionButton(view, action, key <= 9 ? String(key) : ""));
    } else {
      (groups[action.group] = groups[action.group] || []).push(action);
    }
  }
  for (const [group, actions] of Object.entries(groups)) box.append(sizing(view, group, actions));
}

function sizing(view, group, actions) {
  // a range (raises): half pot, pot and all-in, a typed amount, and the slider
  const wrap = el("span", { class: "range-group" });
  const amounts = actions.map((a) => a.amount);
  const nearest = (target) => actions.reduce((best, a) =>
    Math.abs(a.amount - target) < Math.abs(best.amount - target) ? a : best);
  const pot = view.table.pot || 0;
  const presets = [["½ pot", nearest(pot / 2), "h"], ["pot", nearest(pot), "p"],
                   ["all-in", actions[actions.length - 1], "a"]];
  for (const [name, action, key] of presets) {
    const b = el("button", { type: "button", class: "action sizing", "data-action-id": String(action.id),
                             "data-key": key, title: action.text }, `${name} (${action.amount})`);
    b.prepend(el("kbd", {}, key));
    b.addEventListener("click", (event) => { if (event.detail <= 1) act(action.id); });
    wrap.append(b);
  }
  const range = el("input", { type: "range", id: `${group}-range`, min: "0",
                              max: String(actions.length - 1), value: "0", step: "1",
                              "aria-label": `${group} amount` });
  const typed = el("input", { type: "number", id: `${group}-amount`, min: String(amounts[0]),
                              max: String(amounts[amounts.length - 1]), value: String(amounts[0]),
                              "aria-label": `${group} to` });
  const button = el("button", { type: "button", class: "action", id: `${group}-button` });
  const label = (action) => {
    button.textContent = action.text;
    button.dataset.actionId = String(action.id);
  };
  range.addEventListener("input", () => {
    const chosen = actions[Number(range.value)];
    typed.value = String(chosen.amount);
    label(chosen);
  });
  typed.addEventListener("input", () => {
    const chosen = actions.find((a) => a.amount === Number(typed.value));
    if (chosen) {
      range.value = String(actions.indexOf(chosen));
      label(chosen);
    }
  });
  const typedMove = () => {
    const chosen = actions.find((a) => a.amount === Number(typed.value));
    if (!chosen) {
      say(`${group} ${typed.value || "?"} is not legal now: ${amounts[0]}..${amounts[amounts.length - 1]}`);
      return;
    }
    act(chosen.id);
  };
  typed.addEventListener("keydown", (event) => {
    if (event.key === "Enter") { event.preventDefault(); typedMove(); }
  });
  button.addEventListener("click", (event) => { if (event.detail <= 1) typedMove(); });
  label(actions[0]);
  wrap.append(el("span", {}, `${group} ${amounts[0]}..${amounts[amounts.length - 1]}`), range,
              typed, button);
  return wrap;
}

// ---- moves ---------------------------------------------------------------------------

function viewerQuery() {
  return state.viewer === "" ? "" : `?viewer=${state.viewer}`;
}

function lockActions(locked) {
  for (const node of $("actions").querySelectorAll("button, input")) node.disabled = locked;
}

async function post(what, body) {
  if (state.busy) return null;
  state.busy = true;
  lockActions(true);  // from the click until the server answers: one move a click
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
    else lockActions(false);
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

function agentDelay() {
  return Number($("delay").value);
}

function afterMove() {
  // in play, the agents move one by one until the person's turn or the episode's end
  const view = state.view;
  if (view.mode !== "play" || view.waiting_for !== "agent") return;
  clearTimeout(state.timer);
  state.timer = setTimeout(async () => {
    const fresh = await advance();
    if (fresh) afterMove();
  }, agentDelay());
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
  const view = state.view;
  state.episode = episode;
  state.step = Math.max(0, view && episode === view.episode ? Math.min(step, view.steps) : step);
  refresh();
}

// ---- the keyboard --------------------------------------------------------------------

function onKey(event) {
  if (event.ctrlKey || event.metaKey || event.altKey) return;
  const target = event.target;
  if (target && ["INPUT", "SELECT", "TEXTAREA"].includes(target.tagName) &&
      target.type !== "range") return;
  const view = state.view;
  if (!view || $("board").hidden) return;
  if (view.mode === "replay") {
    const moves = { ArrowLeft: -1, ArrowRight: 1 };
    if (event.key in moves) {
      event.preventDefault();
      goTo(state.episode, state.step + moves[event.key]);
    } else if (event.key === "Home") {
      goTo(state.episode, 0);
    } else if (event.key === "End") {
      goTo(state.episode, view.steps);
    }
    return;
  }
  if (view.mode === "watch") {
    if (event.key === " ") { event.preventDefault(); togglePlay(); }
    else if (event.key === "ArrowRight") { stopRunning(); advance(); }
    return;
  }
  if (event.key === "n" && !$("next").hidden) { $("next").click(); return; }
  if (state.busy) return;
  const button = $("actions").querySelector(`button[data-key="${CSS.escape(event.key)}"]`);
  if (button && !button.disabled) {
    event.preventDefault();
    act(Number(button.dataset.actionId));
  }
}

// ---- start ---------------------------------------------------------------------------

async function init() {
  state.games = await api("GET", "/api/games");
  fillSelect($("game"), state.games.map((g) => [g.name, g.title]), state.games[0].name);
  if (DELAY_FROM_QUERY !== null) {
    const option = el("option", { value: DELAY_FROM_QUERY }, `${DELAY_FROM_QUERY} ms`);
    $("delay").append(option);
    $("delay").value = DELAY_FROM_QUERY;
  }
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
  $("rematch").addEventListener("click", () => { if (state.lastMatch) deal(state.lastMatch); });
  const speed = () => { $("speed-label").textContent = `${(Number($("speed").value) / 1000).toFixed(1)} s a move`; };
  $("speed").addEventListener("input", speed);
  speed();
  $("step-back").addEventListener("click", () => goTo(state.episode, state.step - 1));
  $("step-forward").addEventListener("click", () => goTo(state.episode, state.step + 1));
  $("step-first").addEventListener("click", () => goTo(state.episode, 0));
  $("step-last").addEventListener("click", () => goTo(state.episode, state.view.steps));
  $("timeline").addEventListener("change", () => goTo(state.episode, Number($("timeline").value)));
  $("episode").addEventListener("change", () => goTo(Number($("episode").value), 0));
  $("viewer").addEventListener("change", () => { state.viewer = $("viewer").value; refresh(); });
  document.addEventListener("keydown", onKey);
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
