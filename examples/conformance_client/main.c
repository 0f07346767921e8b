/* SPDX-License-Identifier: MIT */
/* mcp-conformance-client - the client program the official conformance
 * suite drives ("conformance client --command mcp-conformance-client ...").
 *
 *   mcp-conformance-client URL
 *
 * The suite starts a scenario server, then this program with the server's
 * URL as last argument and three environment variables:
 * MCP_CONFORMANCE_SCENARIO (the scenario name),
 * MCP_CONFORMANCE_PROTOCOL_VERSION (the revision whose wire the scenario runs:
 * 2025-11-25 forces the initialize handshake, anything newer lets the client
 * discover) and MCP_CONFORMANCE_CONTEXT (JSON; "toolCalls": [{name, arguments}]
 * when the scenario wants particular calls).
 *
 * What it does is what an ordinary application does with libmcp-client: it
 * connects, lists tools, resources and prompts, reads every resource, gets
 * every prompt and calls every tool (arguments from the context, else made
 * up from the tool's required properties). Elicitation is accepted with the
 * schema's defaults (SEP-1034), sampling answered with a fixed text, roots
 * listed as none. Authorization scenarios (auth/...) use libmcp-client's
 * OAuth client (mcp/oauth.h): the suite's authorization server approves
 * without a user, so the authorization URL's redirect is followed; a client
 * id and secret in the context are taken as a pre-registered client, a
 * private_key_pem as its private_key_jwt key; the authorization extension
 * scenarios pick their grant (client credentials, JWT bearer with the
 * context's valid_jwt, enterprise-managed with its IdP) or DPoP. The
 * json_schema_echo tool gets back the inputSchema of
 * json_schema_2020_12_tool as libmcp-client listed it.
 * Exit 0 when every step worked, 1 otherwise. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mcp/client.h>
#include <mcp/oauth.h>

static int failures;

/* A JSON-RPC error is the server's answer (a scenario server may list a
 * tool it does not serve): reported, not a failure of the client. */
static void fail(const char *what, const mcp_error_t *err) {
  fprintf(stderr, "conformance-client: %s: %s\n", what, err->message);
  if (err->status != MCP_ERR_PEER)
    failures++;
}

static mcp_status on_elicit(mcp_client_t *c, const char *method, json_t *params,
                            json_t **result, mcp_error_t *err, void *ud) {
  json_t *content = json_object();
  json_t *props =
      json_object_get(json_object_get(params, "requestedSchema"), "properties");
  const char *key;
  json_t *prop;
  json_object_foreach(props, key, prop) {
    json_t *def = json_object_get(prop, "default");
    if (def != NULL)
      json_object_set(content, key, def);
  }
  *result = json_pack("{s:s,s:o}", "action", "accept", "content", content);
  return *result ? MCP_OK : MCP_ERR_NOMEM;
}

static mcp_status on_sample(mcp_client_t *c, const char *method, json_t *params,
                            json_t **result, mcp_error_t *err, void *ud) {
  *result = json_pack("{s:s,s:s,s:{s:s,s:s}}", "role", "assistant", "model",
                      "conformance-client", "content", "type", "text", "text",
                      "A sampled answer.");
  return *result ? MCP_OK : MCP_ERR_NOMEM;
}

static mcp_status on_roots(mcp_client_t *c, const char *method, json_t *params,
                           json_t **result, mcp_error_t *err, void *ud) {
  *result = json_pack("{s:[]}", "roots");
  return *result ? MCP_OK : MCP_ERR_NOMEM;
}

/* Arguments for a tool nobody gave arguments for: each required property
 * gets a value of its type. */
static json_t *made_up_arguments(json_t *tool) {
  json_t *schema = json_object_get(tool, "inputSchema");
  json_t *props = json_object_get(schema, "properties");
  json_t *args = json_object();
  size_t i;
  json_t *name;
  json_array_foreach(json_object_get(schema, "required"), i, name) {
    const char *n = json_string_value(name);
    json_t *p = json_object_get(props, n ? n : "");
    const char *type = json_string_value(json_object_get(p, "type"));
    json_t *v = type == NULL                   ? json_string("x")
                : strcmp(type, "number") == 0  ? json_integer(5)
                : strcmp(type, "integer") == 0 ? json_integer(3)
                : strcmp(type, "boolean") == 0 ? json_true()
                : strcmp(type, "object") == 0  ? json_object()
                : strcmp(type, "array") == 0   ? json_array()
                                               : json_string("x");
    if (n != NULL)
      json_object_set_new(args, n, v);
    else
      json_decref(v);
  }
  return args;
}

static void call(mcp_client_t *c, const char *name, json_t *args) {
  json_t *r = NULL;
  mcp_error_t err;
  if (mcp_client_call_tool(c, name, args, NULL, NULL, &r, &err) != MCP_OK)
    fail(name, &err);
  json_decref(r);
}

static void tools(mcp_client_t *c, json_t *context) {
  json_t *list = NULL;
  mcp_error_t err;
  if (!mcp_client_server_has(c, "tools"))
    return;
  if (mcp_client_list_tools(c, &list, &err) != MCP_OK) {
    fail("tools/list", &err);
    return;
  }
  json_t *calls = json_object_get(context, "toolCalls");
  size_t i;
  json_t *t;
  if (json_array_size(calls) > 0) {
    json_array_foreach(calls, i, t) {
      const char *name = json_string_value(json_object_get(t, "name"));
      if (name != NULL)
        call(c, name, json_object_get(t, "arguments"));
    }
  } else {
    json_array_foreach(list, i, t) {
      const char *name = json_string_value(json_object_get(t, "name"));
      json_t *args = made_up_arguments(t);
      /* json-schema-2020-12-preservation: the echo tool takes back the
       * focal tool's inputSchema as libmcp-client parsed it, so the suite
       * sees what the client preserved ($schema, $defs, allOf, if...) */
      if (name != NULL && strcmp(name, "json_schema_echo") == 0) {
        json_t *focal = NULL, *other;
        size_t k;
        json_array_foreach(list, k, other) {
          const char *on = json_string_value(json_object_get(other, "name"));
          if (on != NULL && strcmp(on, "json_schema_2020_12_tool") == 0)
            focal = json_object_get(other, "inputSchema");
        }
        if (focal != NULL)
          json_object_set(args, "schema", focal);
      }
      if (name != NULL)
        call(c, name, args);
      json_decref(args);
    }
  }
  json_decref(list);
}

static void resources(mcp_client_t *c) {
  json_t *list = NULL;
  mcp_error_t err;
  if (!mcp_client_server_has(c, "resources"))
    return;
  if (mcp_client_list_all(c, "resources/list", "resources", 0, &list, &err) !=
      MCP_OK) {
    fail("resources/list", &err);
    return;
  }
  size_t i;
  json_t *r;
  json_array_foreach(list, i, r) {
    const char *uri = json_string_value(json_object_get(r, "uri"));
    json_t *res = NULL;
    if (uri != NULL && mcp_client_read_resource(c, uri, &res, &err) != MCP_OK)
      fail(uri, &err);
    json_decref(res);
  }
  json_decref(list);
}

static void prompts(mcp_client_t *c) {
  json_t *list = NULL;
  mcp_error_t err;
  if (!mcp_client_server_has(c, "prompts"))
    return;
  if (mcp_client_list_all(c, "prompts/list", "prompts", 0, &list, &err) !=
      MCP_OK) {
    fail("prompts/list", &err);
    return;
  }
  size_t i, j;
  json_t *p, *a;
  json_array_foreach(list, i, p) {
    const char *name = json_string_value(json_object_get(p, "name"));
    json_t *args = json_object();
    json_array_foreach(json_object_get(p, "arguments"), j, a) {
      const char *an = json_string_value(json_object_get(a, "name"));
      if (an != NULL && json_is_true(json_object_get(a, "required")))
        json_object_set_new(args, an, json_string("x"));
    }
    json_t *res = NULL;
    if (name != NULL &&
        mcp_client_get_prompt(c, name, args, &res, &err) != MCP_OK)
      fail(name, &err);
    json_decref(res);
    json_decref(args);
  }
  json_decref(list);
}

/* The authorization extensions' scenarios name their grant: client
 * credentials, workload identity (JWT bearer with the context's valid
 * workload token), enterprise-managed (the context's IdP and ID token) and
 * DPoP. */
static void configure_grant(mcp_oauth_t *oauth, const char *scenario,
                            json_t *context) {
  if (strncmp(scenario, "auth/client-credentials-", 24) == 0) {
    mcp_oauth_set_grant(oauth, MCP_OAUTH_GRANT_CLIENT_CREDENTIALS);
  } else if (strcmp(scenario, "auth/wif-jwt-bearer") == 0) {
    mcp_oauth_set_grant(oauth, MCP_OAUTH_GRANT_JWT_BEARER);
    const char *jwt = json_string_value(json_object_get(context, "valid_jwt"));
    if (jwt != NULL)
      mcp_oauth_set_assertion(oauth, jwt);
  } else if (strcmp(scenario, "auth/enterprise-managed-authorization") == 0) {
    mcp_oauth_set_grant(oauth, MCP_OAUTH_GRANT_ENTERPRISE);
    const char *ep =
        json_string_value(json_object_get(context, "idp_token_endpoint"));
    const char *tok =
        json_string_value(json_object_get(context, "idp_id_token"));
    if (ep != NULL && tok != NULL)
      mcp_oauth_set_enterprise_idp(
          oauth, ep,
          json_string_value(json_object_get(context, "idp_client_id")), NULL,
          tok);
  } else if (strncmp(scenario, "auth/dpop", 9) == 0) {
    mcp_oauth_set_dpop(oauth, true);
  }
}

int main(int argc, char **argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: mcp-conformance-client URL\n");
    return 2;
  }
  const char *url = argv[argc - 1];
  const char *version = getenv("MCP_CONFORMANCE_PROTOCOL_VERSION");
  const char *ctx_text = getenv("MCP_CONFORMANCE_CONTEXT");
  json_error_t je;
  json_t *context = ctx_text ? json_loads(ctx_text, 0, &je) : NULL;

  mcp_client_options_t *o = NULL;
  mcp_client_t *c = NULL;
  mcp_error_t err;
  mcp_client_options_new(&o);
  mcp_client_options_set_url(o, url);
  mcp_client_options_set_info(o, "libmcp-conformance-client", "1.0.0");
  mcp_client_options_set_timeout_ms(o, 20000);
  /* the suite picks the wire: 2025-11-25 and older are the initialize
   * handshake; newer revisions are discovered */
  if (version != NULL && strcmp(version, "2026-07-28") < 0)
    mcp_client_options_set_protocol_version(o, version);
  mcp_client_options_set_elicitation_handler(o, on_elicit, NULL, NULL);
  mcp_client_options_set_sampling_handler(o, on_sample, NULL, NULL);
  mcp_client_options_set_roots_handler(o, on_roots, NULL, NULL);
  mcp_oauth_t *oauth = NULL;
  const char *scenario = getenv("MCP_CONFORMANCE_SCENARIO");
  if (scenario != NULL && strncmp(scenario, "auth/", 5) == 0 &&
      mcp_oauth_new(url, &oauth) == MCP_OK) {
    const char *id = json_string_value(json_object_get(context, "client_id"));
    const char *key =
        json_string_value(json_object_get(context, "private_key_pem"));
    if (id != NULL && key != NULL) {
      /* private_key_jwt (auth/client-credentials-jwt) */
      if (mcp_oauth_set_client_key(
              oauth, id, key,
              json_string_value(json_object_get(context, "signing_algorithm")),
              &err) != MCP_OK)
        fprintf(stderr, "conformance-client: %s\n", err.message);
    } else if (id != NULL) {
      mcp_oauth_set_client(
          oauth, id,
          json_string_value(json_object_get(context, "client_secret")));
    }
    configure_grant(oauth, scenario, context);
    mcp_oauth_set_client_metadata_url(
        oauth, "https://conformance-test.local/client-metadata.json");
    mcp_oauth_set_mode(oauth, MCP_OAUTH_FOLLOW);
    mcp_client_options_use_oauth(o, oauth);
  }
  mcp_status st = mcp_client_connect(o, &c, &err);
  mcp_client_options_free(o);
  if (st != MCP_OK) {
    fprintf(stderr, "conformance-client: connect: %s\n", err.message);
    mcp_oauth_free(oauth);
    json_decref(context);
    return 1;
  }
  tools(c, context);
  resources(c);
  prompts(c);
  mcp_client_close(c);
  mcp_oauth_free(oauth); /* after the client that borrowed it */
  json_decref(context);
  return failures ? 1 : 0;
}
