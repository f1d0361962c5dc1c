// A component's whole script: it loads its module from the app's static folder (assets.py
// writes the module's address in place of "MODULE"). Streamlit sends a component's script
// with every element of it, at every rerun; this one is a few lines.
const loaded = import(new URL("MODULE", window.location.href).href);  // this script is a blob

// what each element last took: its session and place (assets.py's _in_order); data older
// than that came late and is dropped
const taken = new WeakMap();

export default function (component) {
  const { data, parentElement } = component;
  return loaded.then((module) => {
    if (data && data.order !== undefined) {
      const last = taken.get(parentElement);
      if (last && last.session === data.session && last.order > data.order) return undefined;
      taken.set(parentElement, { session: data.session, order: data.order });
    }
    return module.default(component);
  });
}
