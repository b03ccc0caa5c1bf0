//! Certificates made at test time (feature `pki`): a CA, and the PEM files of the certificates
//! it signs, in a directory of their own that goes when the [`Pki`] does.

use alloc::borrow::ToOwned;
use alloc::format;
use alloc::vec::Vec;
use std::path::PathBuf;

use kwire::io::tls::ServerTls;
use rcgen::{BasicConstraints, CertificateParams, CertifiedIssuer, DnType, IsCa, KeyPair};

/// A CA made for one test, and a directory for the files of what it signs.
#[derive(Debug)]
pub struct Pki {
    /// The directory holding `ca.pem` and every certificate issued.
    pub dir: PathBuf,
    ca: CertifiedIssuer<'static, KeyPair>,
}

impl Pki {
    /// A CA named after `name`, in a fresh directory of the system's temporary one.
    ///
    /// # Panics
    ///
    /// When the directory or the CA cannot be made.
    #[must_use]
    pub fn new(name: &str) -> Self {
        let dir = std::env::temp_dir().join(format!("kwire-pki-{name}-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("a directory for the certificates");
        let mut params = CertificateParams::new(Vec::new()).expect("CA parameters");
        params.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
        params
            .distinguished_name
            .push(DnType::CommonName, format!("kwire test CA {name}"));
        let key = KeyPair::generate().expect("a CA key");
        let ca = CertifiedIssuer::self_signed(params, key).expect("the CA certificate");
        std::fs::write(dir.join("ca.pem"), ca.pem()).expect("writing ca.pem");
        Self { dir, ca }
    }

    /// The CA's certificate, PEM: what clients trust.
    #[must_use]
    pub fn ca_file(&self) -> PathBuf {
        self.dir.join("ca.pem")
    }

    /// A certificate for `names` (DNS names or IP addresses) signed by this CA: the paths of
    /// `FILE.pem` and its key's `FILE.key`.
    ///
    /// # Panics
    ///
    /// When a name is not usable or a file cannot be written.
    #[must_use]
    pub fn issue(&self, file: &str, names: &[&str]) -> (PathBuf, PathBuf) {
        let key = KeyPair::generate().expect("a key");
        let names = names.iter().map(|n| (*n).to_owned()).collect::<Vec<_>>();
        let cert = CertificateParams::new(names)
            .expect("certificate parameters")
            .signed_by(&key, &self.ca)
            .expect("a signed certificate");
        let (cert_path, key_path) = (
            self.dir.join(format!("{file}.pem")),
            self.dir.join(format!("{file}.key")),
        );
        std::fs::write(&cert_path, cert.pem()).expect("writing the certificate");
        std::fs::write(&key_path, key.serialize_pem()).expect("writing the key");
        (cert_path, key_path)
    }

    /// A listener's TLS with a certificate for `names`.
    ///
    /// # Panics
    ///
    /// As [`Pki::issue`].
    #[must_use]
    pub fn server(&self, names: &[&str]) -> ServerTls {
        let (cert, key) = self.issue("broker", names);
        ServerTls::new(cert, key).expect("the broker's certificate and key")
    }
}

impl Drop for Pki {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}
