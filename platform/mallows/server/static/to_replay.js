// m/<slug>.html#<index> (how a written report addresses a replay) -> m/<slug>/<index>.html
(function () {
  "use strict";
  var slug = document.getElementById("to-replay").dataset.slug;
  var idx = location.hash.slice(1);
  if (/^\d+$/.test(idx)) location.replace(slug + "/" + idx + ".html");
})();
