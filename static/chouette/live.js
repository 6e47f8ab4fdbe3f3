// The chouette table page follows its live topic (docs/live.md): the server holds
// GET /api/live/ until the session's version moves, then the page fetches itself again
// and swaps in the new table. A failed request waits a little and asks again.
(function () {
  "use strict";
  const region = document.querySelector("[data-live-topic]");
  if (!region) {
    return;
  }
  const pause = (ms) => new Promise((done) => setTimeout(done, ms));

  async function refresh() {
    const answer = await fetch(window.location.href, { credentials: "same-origin" });
    const page = new DOMParser().parseFromString(await answer.text(), "text/html");
    const fresh = page.querySelector("[data-live-topic]");
    if (fresh) {
      region.innerHTML = fresh.innerHTML;
      region.dataset.liveVersion = fresh.dataset.liveVersion;
    }
  }

  async function follow() {
    for (;;) {
      const url = new URL(region.dataset.liveUrl, window.location.href);
      url.searchParams.set("topic", region.dataset.liveTopic);
      url.searchParams.set("since", region.dataset.liveVersion);
      url.searchParams.set("wait", "25");
      try {
        const answer = await fetch(url, { credentials: "same-origin" });
        if (!answer.ok) {
          await pause(5000);
          continue;
        }
        const { version } = await answer.json();
        if (String(version) !== region.dataset.liveVersion) {
          await refresh();
        }
      } catch (error) {
        await pause(5000);
      }
    }
  }

  follow();
})();
