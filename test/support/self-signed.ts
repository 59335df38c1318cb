/**
 * A self-signed certificate for 127.0.0.1 and its key, for tests only (an HTTPS server on loopback that no client trusts).
 * Made once with `openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 36500 -subj "/CN=127.0.0.1"
 * -addext "subjectAltName=IP:127.0.0.1"` (node:crypto makes keys, not certificates); valid until 2126.
 */
export const SELF_SIGNED = {
  key: `-----BEGIN PRIVATE KEY-----
MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQgxr24eLfRN5kEqCJ8
SRPe7lKFZqjHuQ5EdKPmiqyU6ZuhRANCAAQ4sPRstYDNOfFDL458oj1kMlTJ0e1p
4lfUGHQO62tDgk6NBa4k/q8lsTtkUo1IsK185IGeO8qi47kIm2MAope3
-----END PRIVATE KEY-----
`,
  cert: `-----BEGIN CERTIFICATE-----
MIIBjzCCATagAwIBAgIUS51HYaf9NJt4rKkR1p10NH/Qvd8wCgYIKoZIzj0EAwIw
FDESMBAGA1UEAwwJMTI3LjAuMC4xMCAXDTI2MTEyOTE3NTIxNFoYDzIxMjYxMTA1
MTc1MjE0WjAUMRIwEAYDVQQDDAkxMjcuMC4wLjEwWTATBgcqhkjOPQIBBggqhkjO
PQMBBwNCAAQ4sPRstYDNOfFDL458oj1kMlTJ0e1p4lfUGHQO62tDgk6NBa4k/q8l
sTtkUo1IsK185IGeO8qi47kIm2MAope3o2QwYjAdBgNVHQ4EFgQUZ7ACPSzHJ2Dk
WePqmxffsMdPtjEwHwYDVR0jBBgwFoAUZ7ACPSzHJ2DkWePqmxffsMdPtjEwDwYD
VR0TAQH/BAUwAwEB/zAPBgNVHREECDAGhwR/AAABMAoGCCqGSM49BAMCA0cAMEQC
ICSVNOnKn233cim0BcsF/NPGsNTeDrfkq70s5Urg7U4eAiBzJSlSgpNxvk12eTwB
So01Tk4YRtEqUEPSZOhkeyhzCg==
-----END CERTIFICATE-----
`,
};
