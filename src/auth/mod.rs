//! Who is asking, proven: access tokens (SMART on FHIR / OAuth2) verified by the gateway, the
//! access they grant, signed envelopes between the gateway and the answer workers, their keys,
//! and a development identity provider for the demo and the tests.

pub mod access;
pub mod dev_idp;
pub mod envelope;
pub mod keys;
pub mod token;
