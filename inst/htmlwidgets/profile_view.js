/* htmlwidgets binding of profile_view(): the view itself is
 * lib/profile-view/ (pv-data.js, pv-pattern.js, pv-refine.js, pv-lanes.js,
 * pv-chart-index.js, pv-chart.js, pv-chart-merged.js, pv-chart-waits.js, pv-flame.js,
 * pv-panels.js, pv-top.js, pv-refine-ui.js, pv-link.js, pv-export.js, pv-compare.js,
 * pv-compare-table.js,
 * profile-view.js). */
HTMLWidgets.widget({
  name: "profile_view",
  type: "output",
  factory: function (el) {
    let view = null;
    return {
      renderValue: function (x) {
        el.style.overflow = "hidden";
        view = ProfileView.render(el, x.data);
      },
      resize: function () {
        if (view) view.resize();
      }
    };
  }
});
