/* htmlwidgets binding of profile_view(): the view itself is
 * lib/profile-view/profile-view.js. */
HTMLWidgets.widget({
  name: "profile_view",
  type: "output",
  factory: function (el, width, height) {
    var view = null;
    return {
      renderValue: function (x) {
        el.style.overflow = "hidden";
        view = ProfileView.render(el, x.data);
      },
      resize: function (width, height) {
        if (view) view.resize(width, height);
      }
    };
  }
});
