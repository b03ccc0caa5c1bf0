// The catalogue's in-browser dissector: kwire compiled to WebAssembly (KWIRE_WASM, above)
// renders a frame's grid, tree and records, with the field descriptions of the message's schema
// (KWIRE_SCHEMAS, above: by API key, the request's and the response's); site.js links them.

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

// The sentence that refuses a response given without its API (`noApi`) or version
// (`noVersion`): a response header names neither, so the frame cannot be read without them.
function missingApi(noApi, noVersion) {
  const missing = [noApi ? "the API" : null, noVersion ? "the version" : null].filter((m) => m);
  const what = missing.join(" and ");
  const params = (noApi ? "&api=KEY" : "") + (noVersion ? "&version=N" : "");
  return (
    "A response does not name its API and version (only its request does), and " + what +
    (missing.length > 1 ? " are" : " is") + " not given: choose " + what +
    " of the request it answers, or add " + params + " to the address."
  );
}

// Copies `bytes` into the module's buffer that `room(len)` makes.
function copyIn(k, room, bytes) {
  const at = room(bytes.length);
  new Uint8Array(k.memory.buffer, at, bytes.length).set(bytes);
}

async function dissect(form, result) {
  let bytes;
  try {
    bytes = hexBytes(form.elements.frame.value);
  } catch (e) {
    showError(result, e.message);
    return;
  }
  const response = form.elements.direction.value === "response";
  const api = form.elements.api.value;
  const version = form.elements.version.value;
  if (response && (api === "" || version === "")) {
    showError(result, missingApi(api === "", version === ""));
    return;
  }
  const k = await loadKwire();
  copyIn(k, k.kwire_input, bytes);
  // A request's header names its API: the int16 after the size prefix.
  const key = response ? Number(api) : bytes.length >= 6 ? (bytes[4] << 24) >> 16 | bytes[5] : -1;
  const schema = (KWIRE_SCHEMAS[key] ?? [null, null])[response ? 1 : 0] ?? "";
  copyIn(k, k.kwire_schema, new TextEncoder().encode(schema));
  const n = k.kwire_dissect(response ? 1 : 0, Number(api), Number(version));
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
    const api = (params.get("api") ?? "").trim();
    // As the list writes keys: in decimal, without leading zeros.
    if (api !== "") form.elements.api.value = /^[0-9]+$/.test(api) ? String(Number(api)) : api;
    if (params.has("version")) form.elements.version.value = params.get("version");
    // A response's API key the list does not have would read as none given: said as it is.
    const response = form.elements.direction.value === "response";
    if (response && api !== "" && form.elements.api.value === "") {
      showError(result, `The address names API key ${api}, not a Kafka API this page knows.`);
      return;
    }
    dissect(form, result);
  }
});
