// MathJax settings: \( \) inline and \[ \] display from pymdownx.arithmatex (generic mode) on the
// pages, and $ $ / $$ $$ as well in the notebooks' markdown cells (rendered by mkdocs-jupyter).
window.MathJax = {
  tex: {
    inlineMath: [["\\(", "\\)"], ["$", "$"]],
    displayMath: [["\\[", "\\]"], ["$$", "$$"]],
    processEscapes: true,
    processEnvironments: true
  },
  options: {
    // Skip every element that has a class (all of the theme's containers), except the formulas
    // arithmatex marked and the notebooks' markdown cells, whose unclassed <p>, <li> ... are typeset.
    ignoreHtmlClass: ".+",
    processHtmlClass: "arithmatex|jp-RenderedMarkdown"
  }
};

document$.subscribe(() => {
  MathJax.startup.output.clearCache()
  MathJax.typesetClear()
  MathJax.texReset()
  MathJax.typesetPromise()
})
