/*
 * ecdh(peerPublic): a new P-256 key pair and the secret it shares with peerPublic (65 bytes, uncompressed),
 * answered as one Buffer: the new public key (65 bytes, uncompressed) then the secret (32). RFC 8291 asks one
 * of these of every web push message; why it is written here and not with node:crypto is in ./index.ts.
 *
 * OpenSSL's EC_KEY calls, the ones inside Node (deprecated in OpenSSL 3 but kept; its EVP_PKEY way would read
 * the peer's key through a decoder, which costs more than the multiplication saved). One EC_KEY per Node-API
 * environment (the main thread, each worker thread), whose key pair each call replaces. The peer's key is
 * refused (code ERR_P256_KEY) unless it is a point of the curve: EC_POINT_oct2point checks that.
 */
#include <node_api.h>
#include <openssl/ec.h>
#include <openssl/ecdh.h>
#include <openssl/obj_mac.h>

static EC_KEY *ephemeral_key(napi_env env) {
  EC_KEY *key = NULL;
  return napi_get_instance_data(env, (void **)&key) == napi_ok ? key : NULL;
}

static void free_key(napi_env env, void *data, void *hint) {
  (void)env; (void)hint;
  EC_KEY_free((EC_KEY *)data);
}

static napi_value fail(napi_env env, const char *code, const char *message) {
  napi_throw_error(env, code, message);
  return NULL;
}

static napi_value Ecdh(napi_env env, napi_callback_info info) {
  size_t argc = 1;
  napi_value argv[1];
  if (napi_get_cb_info(env, info, &argc, argv, NULL, NULL) != napi_ok || argc < 1) return fail(env, NULL, "ecdh(publicKey) expects one Buffer");
  void *data = NULL;
  size_t length = 0;
  bool isBuffer = false;
  napi_is_buffer(env, argv[0], &isBuffer);
  if (!isBuffer || napi_get_buffer_info(env, argv[0], &data, &length) != napi_ok) return fail(env, NULL, "ecdh(publicKey) expects one Buffer");
  if (length != 65 || ((unsigned char *)data)[0] != 4) return fail(env, "ERR_P256_KEY", "the public key must be a 65-byte uncompressed P-256 point");
  EC_KEY *key = ephemeral_key(env);
  if (!key) return fail(env, NULL, "p256 not initialised");
  const EC_GROUP *group = EC_KEY_get0_group(key);
  EC_POINT *peer = EC_POINT_new(group);
  if (!peer) return fail(env, NULL, "out of memory");
  if (EC_POINT_oct2point(group, peer, data, length, NULL) != 1) {
    EC_POINT_free(peer);
    return fail(env, "ERR_P256_KEY", "the public key is not a point of P-256");
  }
  if (EC_KEY_generate_key(key) != 1) {
    EC_POINT_free(peer);
    return fail(env, NULL, "key generation failed");
  }
  void *out = NULL;
  napi_value result;
  if (napi_create_buffer(env, 97, &out, &result) != napi_ok) {
    EC_POINT_free(peer);
    return NULL;
  }
  size_t written = EC_POINT_point2oct(group, EC_KEY_get0_public_key(key), POINT_CONVERSION_UNCOMPRESSED, out, 65, NULL);
  int secret = written == 65 ? ECDH_compute_key((unsigned char *)out + 65, 32, peer, key, NULL) : -1;
  EC_POINT_free(peer);
  if (secret != 32) return fail(env, NULL, "ECDH failed");
  return result;
}

NAPI_MODULE_INIT() {
  EC_KEY *key = EC_KEY_new_by_curve_name(NID_X9_62_prime256v1);
  if (!key || napi_set_instance_data(env, key, free_key, NULL) != napi_ok) {
    napi_throw_error(env, NULL, "p256: could not create the P-256 key");
    return NULL;
  }
  napi_value fn;
  napi_create_function(env, "ecdh", NAPI_AUTO_LENGTH, Ecdh, NULL, &fn);
  napi_set_named_property(env, exports, "ecdh", fn);
  return exports;
}
