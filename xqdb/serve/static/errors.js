// Collects what would go to the console as an error, where a test (or a user) can read it.
(function () {
  var box = document.getElementById('page-errors');
  function note(text) { box.textContent += text + '\n'; }
  window.addEventListener('error', function (e) { note('error: ' + e.message); });
  var original = console.error;
  console.error = function () {
    note('console.error: ' + Array.from(arguments).join(' '));
    original.apply(console, arguments);
  };
})();
