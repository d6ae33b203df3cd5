// tier: unit
// What a delivery attempt's TLS is recorded and counted as (RFC 8460 result types), and the outbound TLS
// settings read at start.
import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import { describe, it } from 'node:test';
import { certificateResult, connectFailureResult, sessionRecord, tlsDetails } from '../../../src/domain/delivery/mta-sts/tls-record.js';
import { ConfigError, loadConfig } from '../../../src/config.js';

const verified = { version: 'TLSv1.3', cipher: 'TLS_AES_256_GCM_SHA384', authorized: true, authorizationError: null };
const unverified = { ...verified, authorized: false, authorizationError: 'DEPTH_ZERO_SELF_SIGNED_CERT' };

describe('TLS record of a delivery attempt', () => {
  it('maps certificate verification errors to TLS-RPT result types', () => {
    assert.equal(certificateResult('ERR_TLS_CERT_ALTNAME_INVALID'), 'certificate-host-mismatch');
    assert.equal(certificateResult('CERT_HAS_EXPIRED'), 'certificate-expired');
    assert.equal(certificateResult('DEPTH_ZERO_SELF_SIGNED_CERT'), 'certificate-not-trusted');
    assert.equal(certificateResult('SELF_SIGNED_CERT_IN_CHAIN'), 'certificate-not-trusted');
    assert.equal(certificateResult('UNABLE_TO_VERIFY_LEAF_SIGNATURE'), 'certificate-not-trusted');
    assert.equal(certificateResult('SOMETHING_ELSE'), 'validation-failure');
  });

  it('tells TLS failures of a connection from network failures', () => {
    assert.equal(connectFailureResult({ code: 'ESTARTTLS' }), 'starttls-not-supported');
    assert.equal(connectFailureResult({ code: 'UNABLE_TO_GET_ISSUER_CERT_LOCALLY' }), 'certificate-not-trusted');
    assert.equal(connectFailureResult({ code: 'ERR_SSL_WRONG_VERSION_NUMBER' }), 'validation-failure');
    assert.equal(connectFailureResult({ code: 'ECONNREFUSED' }), null);
    assert.equal(connectFailureResult({ code: 'ETIMEDOUT' }), null);
  });

  it('counts an unverified certificate as a failure under a policy, but not in opportunistic TLS', () => {
    assert.equal(sessionRecord({ mode: 'none', listed: true, fetchError: null }, unverified).result, 'success');
    assert.equal(sessionRecord({ mode: 'testing', listed: true, fetchError: null }, unverified).result, 'certificate-not-trusted');
    assert.equal(sessionRecord({ mode: 'testing', listed: false, fetchError: null }, verified).result, 'validation-failure');
    assert.equal(sessionRecord({ mode: 'none', listed: true, fetchError: null }, null).result, 'starttls-not-supported');
    assert.equal(sessionRecord({ mode: 'none', listed: true, fetchError: 'HTTP 404' }, verified).result, 'sts-policy-fetch-error');
    // Through a relay: what TLS there was, no policy and nothing counted.
    assert.deepEqual(sessionRecord(undefined, verified), { used: true, version: 'TLSv1.3', cipher: 'TLS_AES_256_GCM_SHA384', verified: true, certificateError: null, mode: null, result: null });
  });

  it('writes Details.TLS in the API field style, leaving out what does not apply', () => {
    assert.deepEqual(tlsDetails(sessionRecord({ mode: 'enforce', listed: true, fetchError: null }, verified)), {
      Used: true,
      Version: 'TLSv1.3',
      Cipher: 'TLS_AES_256_GCM_SHA384',
      CertificateVerified: true,
      MTASTSMode: 'enforce',
      Result: 'success',
    });
    assert.deepEqual(tlsDetails(sessionRecord(undefined, null)), { Used: false });
  });
});

describe('outbound TLS settings', () => {
  it('reads MAILROOM_TLS_CA_FILE at start and refuses a missing file or one that is not a certificate', () => {
    const ca = fileURLToPath(new URL('../../fixtures/tls/test-ca.crt', import.meta.url));
    const key = fileURLToPath(new URL('../../fixtures/tls/test-ca.key', import.meta.url));
    const c = loadConfig({ MAILROOM_TLS_CA_FILE: ca });
    assert.match(c.tlsCa!.pem, /BEGIN CERTIFICATE/);
    // RFC 8461 3.3 fixes the policy host's port: it is not a setting, and a variable naming it is refused.
    assert.equal(c.mtaStsPort, 443);
    assert.throws(() => loadConfig({ MAILROOM_MTA_STS_PORT: '8443' }), (e: unknown) => e instanceof ConfigError && e.variable === 'MAILROOM_MTA_STS_PORT');
    assert.equal(loadConfig({}).tlsCa, null);
    assert.throws(() => loadConfig({ MAILROOM_TLS_CA_FILE: '/nonexistent/ca.pem' }), (e: unknown) => e instanceof ConfigError && /MAILROOM_TLS_CA_FILE: cannot read/.test(e.message));
    assert.throws(() => loadConfig({ MAILROOM_TLS_CA_FILE: key }), /MAILROOM_TLS_CA_FILE: .* is not a PEM certificate/);
  });
});
