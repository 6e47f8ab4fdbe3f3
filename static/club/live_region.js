// A page region that follows its live topic (docs/live.md): the chouette table, a
// tournament's page, the lobby. On a newer version of the topic (static/club/live.js)
// the page fetches its region alone (its own address with ?live=region: the view answers the
// region's template, without the base's header and footer) and swaps it in, where the
// reader is (no reload). A fresh region with no topic is finished: nothing more will
// move, so the page stops following. What the reader waits for: a row marked
// data-live-awaits="<id>" (the lobby's invitation waiting for an answer) that comes
// back as data-live-arrives="<id>" (the match begun) takes the page to its
// data-live-href (the board).
(function () {
  "use strict";
  const region = document.querySelector("[data-live-region]");
  if (!region || !region.dataset.liveTopic) {
    return;
  }

  async function refresh() {
    const address = new URL(window.location.href);
    address.searchParams.set("live", "region");
    const answer = await fetch(address, { credentials: "same-origin" });
    const page = new DOMParser().parseFromString(await answer.text(), "text/html");
    const fresh = page.querySelector("[data-live-region]");
    if (!answer.ok || !fresh) {
      throw new Error(`the live region was not answered (${answer.status})`);
    }
    const awaited = new Set(
      Array.from(region.querySelectorAll("[data-live-awaits]"), (row) => row.dataset.liveAwaits),
    );
    const arrived = Array.from(fresh.querySelectorAll("[data-live-arrives]")).find((row) =>
      awaited.has(row.dataset.liveArrives),
    );
    if (arrived) {
      window.location.assign(arrived.dataset.liveHref);
    }
    region.innerHTML = fresh.innerHTML;
    if (fresh.dataset.liveTopic) {
      region.dataset.liveVersion = fresh.dataset.liveVersion;
    } else {
      delete region.dataset.liveTopic;
    }
  }

  const stream = window.clubLive.stream({
    url: region.dataset.liveUrl,
    topic: region.dataset.liveTopic,
    since: region.dataset.liveVersion,
  });
  // A finished region shows every version there will be.
  const announce = window.clubLive.catchUp({
    shown: () => (region.dataset.liveTopic ? Number(region.dataset.liveVersion) : Infinity),
    draw: refresh,
  });
  stream.subscribe(async (event) => {
    await announce(event.version);
    if (!region.dataset.liveTopic) stream.close();
  });
})();
