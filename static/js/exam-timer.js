// Counts down to the exam's deadline and submits the form when time is up.
// The server enforces the deadline on its own; this only keeps the learner informed.
(function () {
  const timer = document.getElementById("exam-timer");
  const form = document.getElementById("exam-form");
  if (!timer || !form) return;
  const deadline = Date.parse(timer.dataset.deadline);
  let submitted = false;
  form.addEventListener("submit", function () { submitted = true; });
  function tick() {
    const left = Math.max(0, Math.round((deadline - Date.now()) / 1000));
    const minutes = Math.floor(left / 60), seconds = left % 60;
    timer.textContent = minutes + ":" + String(seconds).padStart(2, "0");
    timer.classList.toggle("is-low", left <= 60);
    if (left === 0 && !submitted) {
      submitted = true;
      form.requestSubmit ? form.requestSubmit() : form.submit();
      return;
    }
    if (left > 0) setTimeout(tick, 1000);
  }
  tick();
})();
