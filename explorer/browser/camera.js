// The toolbar's camera, giving the chart as a file gets it: the title Python wrote for
// files (layout.meta[key], explorer/figures/hints.py: no "click a point", no hover
// prompt) instead of the screen's, at the round on screen (the meta is bound per round).
// One camera for the app (component.js), the lesson file (interactive.js) and the
// notebook widget (notebook.js).

export function cleanCamera(Plotly, key) {
  return {
    name: "explorerImage", title: "Download plot", icon: Plotly.Icons.camera,
    click: (gd) => {
      const layout = { ...gd.layout };
      const clean = (layout.meta || {})[key];
      if (typeof clean === "string") layout.title = { ...(layout.title || {}), text: clean };
      return Plotly.downloadImage({ data: gd.data, layout, config: gd._context },
                                  gd._context.toImageButtonOptions);
    },
  };
}

// ``config`` with this camera in place of plotly.js's own, once (changed in place and
// returned); as it is without a ``key``
export function withCleanCamera(Plotly, config, key) {
  if (!key || config.modeBarButtonsToAdd) return config;
  config.modeBarButtonsToRemove = [...(config.modeBarButtonsToRemove || []), "toImage"];
  config.modeBarButtonsToAdd = [cleanCamera(Plotly, key)];
  return config;
}
