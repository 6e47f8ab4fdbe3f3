// The review page (templates/analysis/review.html): one decision at a time, stepped with
// the buttons or the keyboard (← →, b for the next blunder). Without this script every
// decision is listed, so the page reads without it too.
(function () {
  "use strict";
  var decisions = Array.prototype.slice.call(document.querySelectorAll("#review .decision"));
  var controls = document.querySelector(".review-controls");
  if (!decisions.length || !controls) {
    return;
  }
  var position = controls.querySelector(".review-position");
  var current = 0;

  function show(index) {
    current = Math.max(0, Math.min(decisions.length - 1, index));
    decisions.forEach(function (item, i) {
      item.hidden = i !== current;
    });
    document.querySelectorAll("#review .review-game").forEach(function (game) {
      game.hidden = !game.contains(decisions[current]);
    });
    position.textContent = (current + 1) + " / " + decisions.length;
  }

  function nextBlunder() {
    for (var i = current + 1; i < decisions.length; i += 1) {
      if (decisions[i].classList.contains("mark-blunder")) {
        show(i);
        return;
      }
    }
  }

  controls.hidden = false;
  controls.addEventListener("click", function (event) {
    var step = event.target.getAttribute("data-step");
    if (step === "blunder") {
      nextBlunder();
    } else if (step) {
      show(current + Number(step));
    }
  });
  document.addEventListener("keydown", function (event) {
    if (event.altKey || event.ctrlKey || event.metaKey) {
      return;
    }
    if (event.key === "ArrowRight") {
      show(current + 1);
    } else if (event.key === "ArrowLeft") {
      show(current - 1);
    } else if (event.key === "b") {
      nextBlunder();
    } else {
      return;
    }
    event.preventDefault();
  });
  document.querySelectorAll(".review-games a").forEach(function (link) {
    link.addEventListener("click", function (event) {
      var number = link.getAttribute("href").replace("#game-", "");
      var first = decisions.findIndex(function (item) {
        return item.getAttribute("data-game") === number;
      });
      if (first >= 0) {
        event.preventDefault();
        show(first);
      }
    });
  });
  show(0);
})();
