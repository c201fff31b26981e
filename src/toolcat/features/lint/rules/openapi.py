"""Rules about OpenAPI documents as a whole, which the OpenAPI loader reports as load problems
(:class:`toolcat.model.Problem`, with their position in the source) while it builds the tools:
the rule functions here only register the codes (their docs, severities and profiles)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Iterator

from toolcat.features.lint.registry import Hit, rule
from toolcat.model import OPENAPI3, SWAGGER2

if TYPE_CHECKING:  # pragma: no cover
    from toolcat.features.lint.engine import Context


@rule("TC112", "openapi-version", "warning",
      "an `openapi` version toolcat does not know (read as the newest it knows, 3.2)",
      scope="catalog", formats=(OPENAPI3,))
def openapi_version(ctx: Context) -> Iterator[Hit]:
    """## What it does
    Reports an `openapi` version toolcat does not know. toolcat reads OpenAPI 3.0, 3.1 and 3.2
    (and Swagger 2.0); another version is read as the newest it knows, 3.2. The loader reports
    it at the `openapi` field.

    ## Why
    A document that says another version may mean things toolcat does not read (new methods,
    new parameter locations, new media type fields): this warning says so rather than staying
    silent about what may be left out.

    ## Example
    ```yaml
    openapi: 4.0.0
    info: {title: Pets, version: "1"}
    paths:
      /pets:
        get:
          operationId: listPets
          summary: List the pets.
          responses: {"200": {description: ok}}
    ```

    ## Fix
    Check the tools toolcat reads from it; if the document is really 3.x, say so in `openapi`.
    """
    return
    yield  # pragma: no cover


@rule("TC113", "path-variable-not-in-path", "error",
      "a path template variable `{name}` with no `in: path` parameter (declared `in: query`"
      "... or not at all): the tool can never fill its URL",
      scope="catalog", formats=(OPENAPI3, SWAGGER2))
def path_variable_not_in_path(ctx: Context) -> Iterator[Hit]:
    """## What it does
    Reports a path template variable `{name}` with no `in: path` parameter: the name is
    declared only in another location (`in: query`, `header`, `cookie`) by the operation (or its
    path item), or no parameter has that name. The loader reports it at the parameter's `in`
    (or at the operation).

    ## Why
    Each `{name}` in an operation's path is filled from a parameter with that name and
    `in: path`. Otherwise the tool sends the value elsewhere and the URL keeps the literal
    `{name}`: no call can ever reach the operation.

    ## Example
    ```yaml
    openapi: 3.0.3
    info: {title: Pets, version: "1"}
    paths:
      /pets/{petId}:
        get:
          operationId: getPet
          summary: Get a pet by id.
          parameters:
            - {name: petId, in: query, required: true, schema: {type: string}}
          responses: {"200": {description: ok}}
    ```

    ## Fix
    Declare the parameter `in: path` (and `required: true`, as OpenAPI asks of path
    parameters).
    """
    return
    yield  # pragma: no cover


@rule("TC114", "webhooks-only", "info",
      "a document whose only operations are `webhooks`, read without `--webhooks`: a catalog "
      "of no tools", scope="catalog", formats=(OPENAPI3,))
def webhooks_only(ctx: Context) -> Iterator[Hit]:
    """## What it does
    Reports an OpenAPI 3.1+ document that has `webhooks` but no operation under `paths`,
    read without `--webhooks`: toolcat makes tools of `paths` operations only, so the
    catalog has no tool. The loader reports it at `webhooks`; `project`, `measure`, `tools`
    and `diff` print it as a warning.

    ## Why
    Webhooks are requests the API sends to you, not calls a model makes, so they are left
    out by default. A document that describes only webhooks (a vendor's notification spec)
    then gives an empty catalog, and "no problems, 0 tools" alone does not say why.

    ## Example
    ```yaml
    openapi: 3.1.0
    info: {title: Pet events, version: "1"}
    webhooks:
      newPet:
        post:
          operationId: onNewPet
          summary: A pet was added.
          responses: {"200": {description: ok}}
    ```

    ## Fix
    Give `--webhooks` when the webhooks are what the tools should be, or lint the document
    that holds the API's `paths`:
    ```yaml
    openapi: 3.1.0
    info: {title: Pets, version: "1"}
    paths:
      /pets:
        get:
          operationId: listPets
          summary: List the pets.
          responses: {"200": {description: ok}}
    webhooks:
      newPet:
        post:
          operationId: onNewPet
          summary: A pet was added.
          responses: {"200": {description: ok}}
    ```
    """
    return
    yield  # pragma: no cover
