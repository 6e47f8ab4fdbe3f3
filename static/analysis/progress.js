// An analysis' progress region (templates/analysis/_progress.html): on the match page's
// summary and on a review page not ready yet. It follows the analysis' topic on the live
// channel (static/club/live.js) and, on each new version, fetches the region again
// (data-fragment) and swaps it in; once done (the fresh region has no topic) it stops.
// A region can come later, or come again, with the board's fragment (the match that has
// just ended: static/matches/play.js swaps the table in): each region in the page is
// followed, and the stream of one taken out of the page is closed. A region inside
// data-reload-when-done (a review page waiting for its analysis) reloads the page once
// done: the decisions are there to review. "Analyse again" posts to the analysis API (a
// player of the match or chouette, who uploaded an imported match: the API says who may)
// and redraws.
(function () {
  "use strict";
  const streams = new Map(); // region element -> its stream

  function follow(region) {
    if (!region.dataset.liveTopic) return;
    const stream = window.clubLive.stream({
      url: region.dataset.liveUrl,
      topic: region.dataset.liveTopic,
      since: region.dataset.liveVersion,
    });
    streams.set(region, stream);
    const announce = window.clubLive.catchUp({
      shown: () => (region.dataset.liveTopic ? Number(region.dataset.liveVersion) : Infinity),
      draw: () => refresh(region),
    });
    stream.subscribe(async (event) => {
      await announce(event.version);
      if (!region.dataset.liveTopic) forget(region);
    });
  }

  function forget(region) {
    const stream = streams.get(region);
    if (stream) stream.close();
    streams.delete(region);
  }

  async function refresh(region) {
    const answer = await fetch(region.dataset.fragment, {
      credentials: "same-origin",
      cache: "no-store",
    });
    const page = new DOMParser().parseFromString(await answer.text(), "text/html");
    const fresh = page.querySelector("[data-analysis-region]");
    if (!answer.ok || !fresh) {
      throw new Error(`the analysis' progress was not answered (${answer.status})`);
    }
    region.innerHTML = fresh.innerHTML;
    region.className = fresh.className;
    if (fresh.dataset.liveTopic) {
      region.dataset.liveTopic = fresh.dataset.liveTopic;
      region.dataset.liveVersion = fresh.dataset.liveVersion;
      region.dataset.liveUrl = fresh.dataset.liveUrl;
      if (!streams.has(region)) follow(region);
    } else {
      delete region.dataset.liveTopic;
      if (region.closest("[data-reload-when-done]")) window.location.reload();
    }
  }

  async function askAgain(form) {
    const region = form.closest("[data-analysis-region]");
    const error = region.querySelector("[data-analysis-error]");
    const csrf = form.querySelector("input[name=csrfmiddlewaretoken]").value;
    const answer = await fetch(form.dataset.analysisRequest, {
      method: "POST",
      credentials: "same-origin",
      headers: { "X-CSRFToken": csrf },
    });
    if (!answer.ok) {
      const body = await answer.json().catch(() => ({ detail: answer.statusText }));
      error.textContent = body.detail;
      error.hidden = false;
      return;
    }
    await refresh(region);
  }

  function scan() {
    for (const region of Array.from(streams.keys())) {
      if (!region.isConnected) forget(region);
    }
    document.querySelectorAll("[data-analysis-region]").forEach((region) => {
      if (!streams.has(region)) follow(region);
    });
  }

  document.addEventListener("submit", (event) => {
    const form = event.target.closest("form[data-analysis-request]");
    if (!form) return;
    event.preventDefault();
    askAgain(form);
  });
  new MutationObserver(scan).observe(document.body, { childList: true, subtree: true });
  scan();
})();
