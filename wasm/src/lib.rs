//! kwire's dissector for the browser: the catalogue's dissect page (`kwire site --wasm`) loads
//! this module, built for `wasm32-unknown-unknown`, and shows any frame a user pastes with the
//! same byte grid and object tree as the catalogue's pages, rendered by the same code
//! ([`kwire_site::write_frame`]).
//!
//! The boundary is four functions over the module's memory, no bindings generator:
//!
//! 1. `kwire_input(len)` makes room for a frame of `len` bytes and returns where to copy it;
//! 2. `kwire_dissect(kind, api_key, version)` dissects it (`kind` 0 for a request, whose header
//!    names the API, 1 for a response of `api_key` at `version`) and returns the length of the
//!    HTML it produced, a `<p class="error">` first when the frame is malformed;
//! 3. `kwire_output()` returns where that HTML is, as UTF-8;
//! 4. `kwire_failed()` returns 1 when the last frame did not decode, else 0.
//!
//! The only `unsafe` is the `no_mangle` attribute that exports them.

use std::cell::RefCell;
use std::fmt::Write as _;

use kwire::ApiKey;
use kwire_site::Frame;

/// The module's state: the browser runs it on one thread.
#[derive(Default)]
struct State {
    input: Vec<u8>,
    output: String,
    failed: bool,
}

thread_local! {
    static STATE: RefCell<State> = RefCell::default();
}

/// Makes room for an input of `len` bytes and returns its address in the module's memory.
#[unsafe(no_mangle)]
pub extern "C" fn kwire_input(len: usize) -> *mut u8 {
    STATE.with_borrow_mut(|s| {
        s.input.clear();
        s.input.resize(len, 0);
        s.input.as_mut_ptr()
    })
}

/// Dissects the input: a request frame for `kind` 0, a response of `api_key` at `version`
/// otherwise. Returns the length of the HTML in [`kwire_output`].
#[unsafe(no_mangle)]
pub extern "C" fn kwire_dissect(kind: i32, api_key: i32, version: i32) -> usize {
    STATE.with_borrow_mut(|s| {
        let State {
            input,
            output,
            failed,
        } = s;
        output.clear();
        *failed = false;
        let frame = if kind == 0 {
            Some(Frame::Request)
        } else {
            match (i16::try_from(api_key), i16::try_from(version)) {
                (Ok(api), Ok(version)) => Some(Frame::Response {
                    api: ApiKey(api),
                    version,
                }),
                _ => None,
            }
        };
        let Some(frame) = frame else {
            *failed = true;
            output.push_str("<p class=\"error\">the API key or version is out of range</p>");
            return output.len();
        };
        let mut html = String::new();
        if let Err(e) = kwire_site::write_frame(&mut html, input, frame, None) {
            *failed = true;
            let _ = writeln!(
                output,
                "<p class=\"error\">{}</p>",
                kwire_site::escape(&e.to_string())
            );
        }
        output.push_str(&html);
        output.len()
    })
}

/// Where the HTML of the last [`kwire_dissect`] is.
#[unsafe(no_mangle)]
pub extern "C" fn kwire_output() -> *const u8 {
    STATE.with_borrow(|s| s.output.as_ptr())
}

/// 1 when the last frame did not decode, else 0.
#[unsafe(no_mangle)]
pub extern "C" fn kwire_failed() -> i32 {
    STATE.with_borrow(|s| i32::from(s.failed))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dissect(frame: &[u8], kind: i32, api: i32, version: i32) -> (String, bool) {
        let at = kwire_input(frame.len());
        STATE.with_borrow_mut(|s| {
            assert_eq!(s.input.as_ptr(), at.cast_const());
            s.input.copy_from_slice(frame);
        });
        let n = kwire_dissect(kind, api, version);
        STATE.with_borrow(|s| {
            assert_eq!(s.output.as_ptr(), kwire_output());
            assert_eq!(s.output.len(), n);
            (s.output.clone(), kwire_failed() == 1)
        })
    }

    #[test]
    fn a_request_and_a_response() {
        let request = [
            0, 0, 0, 21, 0, 39, 0, 2, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0,
        ];
        let (html, failed) = dissect(&request, 0, 0, 0);
        assert!(!failed);
        assert!(html.contains("39 (RenewDelegationToken)"));
        assert_eq!(html.matches("<td ").count(), request.len());
        let response = [
            0, 0, 0, 20, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
        ];
        let (html, failed) = dissect(&response, 1, 39, 2);
        assert!(!failed);
        assert!(html.contains("ExpiryTimestampMs"));
    }

    #[test]
    fn a_malformed_frame_says_where() {
        let (html, failed) = dissect(&[0, 0, 0, 9, 0, 39, 0, 2], 0, 0, 0);
        assert!(failed);
        assert!(html.starts_with("<p class=\"error\">"), "{html}");
        let (_, failed) = dissect(&[0; 8], 1, 70_000, 0);
        assert!(failed);
    }
}
