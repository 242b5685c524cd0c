// The explorer's board: click a piece of the side to move, then a point it can go to.
// The page lists every legal move as the address that plays it ("from-to" squares,
// 0-89 from a1), so the click only picks one; the server checks it again.
(function () {
  var board = document.getElementById('board');
  var targets = JSON.parse(document.getElementById('targets').textContent);
  var links = JSON.parse(document.getElementById('move-links').textContent);
  var chosen = null;

  function clear() {
    board.querySelectorAll('.selected, .target').forEach(function (el) {
      el.classList.remove('selected', 'target');
    });
    chosen = null;
  }

  function choose(square) {
    clear();
    chosen = square;
    var piece = board.querySelector('g.piece[data-square="' + square + '"]');
    if (piece) piece.classList.add('selected');
    (targets[square] || []).forEach(function (to) {
      var point = board.querySelector('circle.point[data-square="' + to + '"]');
      if (point) point.classList.add('target');
    });
  }

  board.addEventListener('click', function (event) {
    var point = event.target.closest('[data-square]');
    if (!point) return;
    var square = point.getAttribute('data-square');
    if (chosen !== null && links[chosen + '-' + square]) {
      window.location.href = links[chosen + '-' + square];
    } else if (targets[square]) {
      choose(square);
    } else {
      clear();
    }
  });

  document.addEventListener('keydown', function (event) {
    if (event.target.closest('input, select, textarea')) return;
    var ids = {ArrowLeft: 'back', ArrowRight: 'forward', Home: 'start', End: 'end'};
    var link = ids[event.key] && document.getElementById(ids[event.key]);
    if (link && link.href) window.location.href = link.href;
    if (event.key === 'Escape') clear();
  });
})();
