"""The HTTP side of the host: the Falcon app factory, errors, OpenAPI, core routes."""
