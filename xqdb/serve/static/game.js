// Stepping through a game with the keyboard: left and right a ply, Home and End.
(function () {
  document.addEventListener('keydown', function (event) {
    if (event.target.closest('input, select, textarea')) return;
    var ids = {ArrowLeft: 'back', ArrowRight: 'forward', Home: 'start', End: 'end'};
    var link = ids[event.key] && document.getElementById(ids[event.key]);
    if (link) {
      event.preventDefault();
      window.location.href = link.href;
    }
  });
  var now = document.querySelector('#moves a.now');
  var list = document.getElementById('moves');
  // The list scrolls, not the page: the move shown is brought into its view.
  if (now && list) {
    list.scrollTop += now.getBoundingClientRect().top - list.getBoundingClientRect().top
                      - list.clientHeight / 2;
  }
})();
