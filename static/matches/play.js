// The board page (docs/play.md), and a chouette member's own board (docs/chouette.md):
// acts through the JSON API with the session, follows the table's topic on the live
// channel (static/club/live.js) and swaps in the board fragment the server draws whenever
// the table's version moves. No strings of its own: every text shown comes from the
// server, in the reader's language. With data-steps="local" (a chouette, whose API takes
// whole plays) the steps clicked are kept here and drawn by the server from the
// fragment's ?steps=, and "confirm" sends the whole play.
(function () {
  "use strict";
  const area = document.getElementById("table-area");
  if (!area) return;
  const csrf = document.querySelector("input[name=csrfmiddlewaretoken]").value;
  const localSteps = area.dataset.steps === "local";
  let state = readState();
  let selected = null;
  let clockBase = performance.now();

  function readState() {
    return JSON.parse(document.getElementById("table-state").textContent);
  }

  function showError(text) {
    const box = document.getElementById("play-error");
    if (!box) return;
    box.textContent = text || "";
    box.hidden = !text;
  }

  // Fetch the board fragment again and put it in place of the old one.
  let refreshing = null;
  function fragmentUrl(steps) {
    if (!localSteps || !steps.length) return area.dataset.fragment;
    const query = new URLSearchParams({
      turn_no: state.turn_no,
      steps: steps.map((step) => step.join("-")).join("."),
    });
    return area.dataset.fragment + "?" + query;
  }

  function refresh(steps) {
    if (refreshing && steps) return refreshing.then(() => refresh(steps));
    if (!refreshing) {
      const url = fragmentUrl(steps || (localSteps ? state.pending : []));
      refreshing = fetch(url, { credentials: "same-origin", cache: "no-store" })
        .then((response) => (response.ok ? response.text() : Promise.reject(response)))
        .then((html) => {
          area.innerHTML = html;
          state = readState();
          selected = null;
          clockBase = performance.now();
          tickClocks();
        })
        .finally(() => {
          refreshing = null;
        });
    }
    return refreshing;
  }

  // A chouette's unconfirmed steps: one more, one fewer, or the whole play sent.
  function stepLocally(action, body) {
    if (action === "move_step") return refresh([...state.pending, [body.origin, body.die]]);
    if (action === "undo") return refresh(state.pending.slice(0, -1));
    return act("move", { play: state.play });
  }

  async function act(action, body, turnNo) {
    if (localSteps && ["move_step", "undo", "confirm"].includes(action)) {
      return stepLocally(action, body);
    }
    showError("");
    // An answer to a double carries the offer's turn number (a chouette's cubes).
    const turn = turnNo === undefined ? state.turn_no : Number(turnNo);
    const response = await fetch(area.dataset.api + action + "/", {
      method: "POST",
      credentials: "same-origin",
      headers: { "Content-Type": "application/json", "X-CSRFToken": csrf },
      body: JSON.stringify(Object.assign({ turn_no: turn }, body || {})),
    });
    if (!response.ok) {
      const error = await response.json().catch(() => ({ detail: response.statusText }));
      await refresh([]);
      showError(error.detail);
      return;
    }
    // The answer names the version the action made: draw up to it, once. (A redraw of
    // the same version would drop a checker the player has tapped meanwhile.)
    const { version } = await response.json().catch(() => ({}));
    if (version === undefined) return refresh([]);
    await announce(version);
  }

  // A button's data-* other than data-act and data-turn-no are its request's fields.
  function buttonBody(button) {
    const body = Object.assign({}, button.dataset);
    delete body.act;
    delete body.turnNo;
    return body;
  }

  // A form's fields; those named in data-many are lists (the box's double "to").
  function formBody(form) {
    const many = (form.dataset.many || "").split(" ").filter(Boolean);
    const body = Object.fromEntries(many.map((name) => [name, []]));
    for (const [name, value] of new FormData(form)) {
      if (many.includes(name)) body[name].push(value);
      else body[name] = value;
    }
    return body;
  }

  // The board is drawn up to the latest version announced, by the table's stream or by
  // the answer to the page's own action, once each (static/club/live.js).
  const announce = window.clubLive.catchUp({ shown: () => state.version, draw: () => refresh() });

  // Checkers moved by clicking: a checker, then one of its landing points (T3).
  function mark() {
    area.querySelectorAll(".selected, .landing").forEach((g) => g.classList.remove("selected", "landing"));
    if (selected === null) return;
    area.querySelector(`svg.board [data-point="${selected}"]`).classList.add("selected");
    for (const to of Object.keys(state.steps[selected])) {
      area.querySelector(`svg.board [data-point="${to}"]`).classList.add("landing");
    }
  }

  area.addEventListener("click", (event) => {
    const button = event.target.closest("button[data-act]");
    if (button) {
      act(button.dataset.act, buttonBody(button), button.dataset.turnNo);
      return;
    }
    const target = event.target.closest("svg.board [data-point]");
    if (!target || !state.my_turn) return;
    const point = target.dataset.point;
    if (selected !== null && point in state.steps[selected]) {
      const die = state.steps[selected][point];
      const origin = Number(selected);
      selected = null;
      mark();
      act("move_step", { origin: origin, die: die });
      return;
    }
    selected = point in state.steps && selected !== point ? point : null;
    mark();
  });

  area.addEventListener("submit", (event) => {
    const form = event.target.closest("form[data-act]");
    if (!form) return;
    event.preventDefault();
    act(form.dataset.act, formBody(form));
  });

  // Both clocks: the side on turn counts down from what the server said, on this
  // device's own clock (no trust in the two clocks agreeing).
  function format(seconds) {
    const s = Math.max(0, Math.ceil(seconds));
    const h = Math.floor(s / 3600);
    const m = Math.floor((s % 3600) / 60);
    const rest = String(s % 60).padStart(2, "0");
    return h ? `${h}:${String(m).padStart(2, "0")}:${rest}` : `${m}:${rest}`;
  }

  function tickClocks() {
    const spent = (performance.now() - clockBase) / 1000;
    area.querySelectorAll(".clock[data-left]").forEach((clock) => {
      const left = Number(clock.dataset.left) - ("running" in clock.dataset ? spent : 0);
      clock.textContent = format(left);
    });
  }

  setInterval(tickClocks, 250);
  tickClocks();
  window.clubLive
    .stream({
      url: area.dataset.liveUrl,
      topic: state.topic,
      since: state.version,
      lost: document.getElementById("live-lost"),
    })
    .subscribe((event) => announce(event.version));
})();
