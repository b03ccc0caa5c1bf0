// The catalogue's in-browser dissector: kwire compiled to WebAssembly (KWIRE_WASM, above)
// renders a frame's grid and tree; site.js links them.

let kwire = null;

async function loadKwire() {
  if (kwire === null) {
    const module = Uint8Array.from(atob(KWIRE_WASM), (c) => c.charCodeAt(0));
    const { instance } = await WebAssembly.instantiate(module, {});
    kwire = instance.exports;
  }
  return kwire;
}

function hexBytes(text) {
  const digits = text.replace(/\s+/g, "");
  if (!/^([0-9a-fA-F]{2})*$/.test(digits)) {
    throw new Error("not a frame in hex: an odd number of digits, or a character that is not one");
  }
  const bytes = new Uint8Array(digits.length / 2);
  for (let i = 0; i < bytes.length; i++) {
    bytes[i] = parseInt(digits.substr(2 * i, 2), 16);
  }
  return bytes;
}

function showError(result, message) {
  result.replaceChildren();
  const p = document.createElement("p");
  p.className = "error";
  p.textContent = message;
  result.appendChild(p);
  result.dataset.failed = "1";
}

async function dissect(form, result) {
  let bytes;
  try {
    bytes = hexBytes(form.elements.frame.value);
  } catch (e) {
    showError(result, e.message);
    return;
  }
  const k = await loadKwire();
  const at = k.kwire_input(bytes.length);
  new Uint8Array(k.memory.buffer, at, bytes.length).set(bytes);
  const response = form.elements.direction.value === "response";
  const n = k.kwire_dissect(
    response ? 1 : 0,
    Number(form.elements.api.value),
    Number(form.elements.version.value),
  );
  const html = new TextDecoder().decode(new Uint8Array(k.memory.buffer, k.kwire_output(), n));
  result.innerHTML = html;
  result.dataset.failed = String(k.kwire_failed());
  linkSide(result);
}

document.addEventListener("DOMContentLoaded", () => {
  const form = document.getElementById("dissect");
  const result = document.getElementById("result");
  form.addEventListener("submit", (e) => {
    e.preventDefault();
    dissect(form, result);
  });
  // A frame in the address: ?request=HEX, or ?response=HEX&api=K&version=V.
  const params = new URLSearchParams(window.location.search);
  const frame = params.get("request") ?? params.get("response");
  if (frame !== null) {
    form.elements.frame.value = frame;
    form.elements.direction.value = params.has("response") ? "response" : "request";
    if (params.has("api")) form.elements.api.value = params.get("api");
    if (params.has("version")) form.elements.version.value = params.get("version");
    dissect(form, result);
  }
});
