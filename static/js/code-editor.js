// Turns each textarea.code-input into a CodeMirror editor; without JavaScript the textarea still works.
(function () {
  if (!window.CodeMirror) return;
  document.querySelectorAll("textarea.code-input").forEach(function (area) {
    var python = area.dataset.language === "python";
    var editor = CodeMirror.fromTextArea(area, {
      mode: python ? "python" : { name: "javascript", json: true },
      lineNumbers: true, matchBrackets: true, autoCloseBrackets: true, indentUnit: python ? 4 : 2,
      tabSize: python ? 4 : 2, viewportMargin: Infinity,
      extraKeys: { Tab: function (cm) { cm.replaceSelection(python ? "    " : "  "); } },
    });
    editor.on("change", function () { editor.save(); });
    // htmx serialises the form from the textarea, so keep it current before every request.
    area.form.addEventListener("htmx:configRequest", function () { editor.save(); });
    area.form.addEventListener("submit", function () { editor.save(); });
  });
})();
