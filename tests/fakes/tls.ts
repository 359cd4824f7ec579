import { generate } from 'selfsigned';

/** A self-signed server certificate for 127.0.0.1/localhost, and a client certificate it signed. */
export interface TestCertificates {
  /** Server certificate (PEM); clients trust it as their CA. */
  cert: string;
  key: string;
  /** A client certificate signed by the server key, for APNs certificate auth. */
  clientCert: string;
  clientKey: string;
}

let cached: Promise<TestCertificates> | undefined;

/** Generates (once per process) the certificates every TLS fake serves. */
export function testCertificates(): Promise<TestCertificates> {
  cached ??= generate([{ name: 'commonName', value: 'localhost' }], {
    keyType: 'ec',
    curve: 'P-256',
    algorithm: 'sha256',
    extensions: [
      { name: 'basicConstraints', cA: true },
      { name: 'keyUsage', digitalSignature: true, keyCertSign: true },
      { name: 'extKeyUsage', serverAuth: true, clientAuth: true },
      {
        name: 'subjectAltName',
        altNames: [
          { type: 2, value: 'localhost' },
          { type: 7, ip: '127.0.0.1' },
        ],
      },
    ],
    clientCertificate: { keyType: 'ec', cn: 'Apple Push Services: com.example.app' },
  }).then((pems) => ({
    cert: pems.cert,
    key: pems.private,
    clientCert: pems.clientcert!,
    clientKey: pems.clientprivate!,
  }));
  return cached;
}
