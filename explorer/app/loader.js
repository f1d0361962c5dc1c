// A component's whole script: it loads its module from the app's static folder (assets.py
// writes the module's address in place of "MODULE"). Streamlit sends a component's script
// with every element of it, at every rerun; this one is a few lines.
const loaded = import(new URL("MODULE", window.location.href).href);  // this script is a blob

export default function (component) {
  return loaded.then((module) => module.default(component));
}
