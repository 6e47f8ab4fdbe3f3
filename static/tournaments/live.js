// A tournament's page follows the live channel (docs/live.md): it asks /api/live/ whether
// the tournament has moved past the version the page shows, and reloads when it has.
(function () {
  const page = document.querySelector("[data-live-topic]");
  if (!page) return;
  const topic = page.dataset.liveTopic;
  const shown = Number(page.dataset.liveVersion);
  async function follow() {
    for (;;) {
      const query = new URLSearchParams({ topic: topic, since: shown, wait: 25 });
      let response;
      try {
        response = await fetch("/api/live/?" + query, { credentials: "same-origin" });
      } catch (error) {
        await new Promise((resolve) => setTimeout(resolve, 5000));
        continue;
      }
      if (!response.ok) return; // not logged in, or the tournament is gone
      const body = await response.json();
      if (body.version > shown) {
        window.location.reload();
        return;
      }
    }
  }
  follow();
})();
