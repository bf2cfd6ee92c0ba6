"""What a read-only query must still not call or read: the deny lists every SQL reader shares.

Two lists. Functions with side effects, file or server access, or that run SQL hidden in a string
(:data:`DENIED_FUNCTIONS`, :data:`DENIED_PREFIXES`, :func:`is_denied_function`): text2sql's guard
refuses them in the parsed tree and the SQLite executor's authorizer refuses them again, so a query
that reached the executor without the guard still cannot call them.

Reads that disclose the database server rather than the data (the rest of this module), refused
by text2sql's ``SQLGuard``.

An agent that reads a database answers questions about the data and its schema. A read-only query can still tell an
attacker (or a prompt-injected model) about the server, so these four classes are refused even
though they write nothing:

* **server configuration and files**: settings (``current_setting``, ``pg_settings``, ``SHOW``),
  configuration files and their rules (``pg_file_settings``, ``pg_hba_file_rules``), file-system
  paths (``data_directory``, ``pg_ls_dir``, ``pg_relation_filepath``, ``pg_tablespace_location``),
  the build (``version()``, ``pg_config``, ``sqlite_version()``, ``pragma_compile_options``);
  ``version()`` is refused because the exact release is what a known-vulnerability search needs,
  and no question about the data does;
* **other sessions**: their queries and activity (``pg_stat_activity``, ``pg_stat_statements``,
  ``pg_locks``, ``pg_stat_get_backend_*``, ``pg_blocking_pids``), server-wide counters, and the
  other databases on the server (``pg_database``, ``pg_stat_database``);
* **network addresses**: ``inet_server_addr/port``, ``inet_client_addr/port`` and the views that
  carry client addresses (``pg_stat_ssl``, ``pg_stat_replication``, ``pg_stat_wal_receiver``);
* **roles and credentials**: role catalogs (``pg_authid``, ``pg_roles``, ``pg_user``, ``pg_shadow``,
  ``pg_auth_members``, ``pg_user_mappings``), privilege probes (``has_table_privilege``, ...,
  ``pg_has_role``), the connected role itself (``current_user``, ``session_user``, bare ``user``) and
  the ``information_schema`` views about roles and grants.

Allowed on purpose: the schema of the database being queried (``sqlite_master``, the
``pragma_table_info`` family, ``information_schema.tables/columns``, ``pg_class``), per-table
statistics, and ``current_setting`` of a few settings that only shape how values look
(``TimeZone``, ``DateStyle``, ...): they describe the data, which the agent is there to read.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["DENIED_FUNCTIONS", "DENIED_PREFIXES", "SAFE_SETTINGS", "ServerRead", "is_denied_function",
           "server_read_function", "server_read_table"]

# Functions with side effects, file or server access, or that run SQL hidden in a string
# (query_to_xml, ts_stat, dblink). Matched case-insensitively on the bare name, any schema.
# fmt: off
DENIED_FUNCTIONS: frozenset[str] = frozenset(
    {
        # postgres: files, server admin, sessions, notifications, sequences, hidden SQL
        "pg_read_file", "pg_read_binary_file", "pg_stat_file", "pg_file_write", "pg_file_rename",
        "pg_file_unlink", "pg_file_sync", "pg_logdir_ls", "set_config", "pg_notify",
        "pg_terminate_backend", "pg_cancel_backend", "pg_reload_conf", "pg_rotate_logfile",
        "pg_switch_wal", "pg_create_restore_point", "pg_promote", "pg_log_backend_memory_contexts",
        "pg_import_system_collations", "pg_export_snapshot", "pg_start_backup", "pg_stop_backup",
        "pg_backup_start", "pg_backup_stop", "nextval", "setval", "txid_current",
        "pg_current_xact_id", "query_to_xml", "query_to_xmlschema", "query_to_xml_and_xmlschema",
        "cursor_to_xml", "cursor_to_xmlschema", "database_to_xml", "database_to_xmlschema",
        "database_to_xml_and_xmlschema", "schema_to_xml", "schema_to_xmlschema",
        "schema_to_xml_and_xmlschema", "ts_stat", "ts_rewrite", "copy",
        # sqlite: extensions and the fileio/zipfile helpers of the CLI
        "load_extension", "readfile", "writefile", "edit", "fts3_tokenizer", "zipfile", "fsdir",
        "sqlar_compress", "sqlar_uncompress",
    }
)
DENIED_PREFIXES = (
    "pg_sleep", "pg_ls_", "pg_read_", "pg_file_", "lo_", "dblink", "pg_advisory_",
    "pg_try_advisory_", "pg_replication_", "pg_create_", "pg_drop_replication", "pg_logical_",
    "pg_copy_", "pg_stat_reset", "pg_wal_replay_",
)
# fmt: on


@dataclass(frozen=True)
class ServerRead:
    kind: str  # one of the four classes above, as the refusal names it
    name: str


_CONFIG = "server configuration and files"
_SESSIONS = "other sessions and the server's activity"
_NETWORK = "the server's network addresses"
_ROLES = "roles and credentials"

# fmt: off
_FUNCTIONS: dict[str, str] = {
    **dict.fromkeys((
        "version", "currentversion", "current_version", "sqlite_version", "sqlite_source_id",
        "sqlite_compileoption_get", "sqlite_compileoption_used", "pg_current_logfile", "pg_conf_load_time",
        "pg_postmaster_start_time", "pg_relation_filepath", "pg_relation_filenode", "pg_tablespace_location",
        "pg_config", "pg_show_all_settings", "pg_show_all_file_settings", "pg_hba_file_rules",
        "pg_ident_file_mappings", "pg_control_system", "pg_control_checkpoint", "pg_control_recovery",
        "pg_control_init", "pg_available_extensions", "pg_available_extension_versions", "pg_get_keywords",
        "pg_tablespace_databases", "pg_settings_get_flags",
    ), _CONFIG),
    **dict.fromkeys((
        "pg_backend_pid", "pg_blocking_pids", "pg_safe_snapshot_blocking_pids", "pg_lock_status",
        "pg_stat_get_activity", "pg_stat_get_progress_info", "pg_stat_statements", "pg_stat_statements_info",
        "pg_prepared_xact", "pg_get_backend_memory_contexts", "pg_get_shmem_allocations",
        "pg_stat_get_db_numbackends", "pg_stat_get_snapshot_timestamp", "pg_database_size", "pg_tablespace_size",
        "pg_notification_queue_usage", "pg_trigger_depth", "pg_jit_available", "pg_is_in_recovery",
        "pg_last_wal_receive_lsn", "pg_last_wal_replay_lsn", "pg_current_wal_lsn",
    ), _SESSIONS),
    **dict.fromkeys((
        "inet_server_addr", "inet_server_port", "inet_client_addr", "inet_client_port",
    ), _NETWORK),
    **dict.fromkeys((
        "currentuser", "current_user", "sessionuser", "session_user", "current_role", "user", "pg_has_role",
        "has_any_column_privilege", "has_column_privilege", "has_database_privilege",
        "has_foreign_data_wrapper_privilege", "has_function_privilege", "has_language_privilege",
        "has_parameter_privilege", "has_schema_privilege", "has_sequence_privilege", "has_server_privilege",
        "has_table_privilege", "has_tablespace_privilege", "has_type_privilege", "pg_get_userbyid",
        "acldefault", "aclexplode", "makeaclitem", "row_security_active",
    ), _ROLES),
}
_FUNCTION_PREFIXES: tuple[tuple[str, str], ...] = (
    ("pg_stat_get_backend", _SESSIONS), ("pg_stat_get_wal", _SESSIONS), ("pg_stat_get_archiver", _SESSIONS),
    ("pg_stat_get_bgwriter", _SESSIONS), ("pg_stat_get_checkpointer", _SESSIONS),
    ("pg_stat_get_replication", _SESSIONS), ("pg_stat_get_subscription", _SESSIONS),
    ("pg_stat_get_db_", _SESSIONS), ("pg_walfile_", _CONFIG), ("pg_wal_", _SESSIONS),
)
_TABLES: dict[str, str] = {
    **dict.fromkeys((
        "pg_settings", "pg_file_settings", "pg_hba_file_rules", "pg_ident_file_mappings", "pg_config",
        "pg_tablespace", "pg_available_extensions", "pg_available_extension_versions",
        "pg_largeobject", "sqlite_dbpage", "fsdir", "zipfile",
        "pragma_database_list", "pragma_compile_options", "pragma_function_list", "pragma_module_list",
        "pragma_pragma_list", "pragma_collation_list",
    ), _CONFIG),
    **dict.fromkeys((
        "pg_stat_activity", "pg_stat_statements", "pg_stat_statements_info", "pg_locks", "pg_database",
        "pg_stat_database", "pg_stat_database_conflicts", "pg_prepared_xacts", "pg_replication_slots",
        "pg_stat_archiver", "pg_stat_bgwriter", "pg_stat_checkpointer", "pg_stat_wal", "pg_stat_io",
        "pg_stat_slru", "pg_stat_recovery_prefetch", "pg_backend_memory_contexts", "pg_shmem_allocations",
        "pg_stat_subscription", "pg_stat_subscription_stats", "pg_stat_replication_slots",
    ), _SESSIONS),
    **dict.fromkeys(("pg_stat_ssl", "pg_stat_gssapi", "pg_stat_replication", "pg_stat_wal_receiver"), _NETWORK),
    **dict.fromkeys((
        "pg_authid", "pg_shadow", "pg_roles", "pg_user", "pg_group", "pg_auth_members", "pg_db_role_setting",
        "pg_user_mapping", "pg_user_mappings", "pg_seclabels", "pg_default_acl", "pg_init_privs",
    ), _ROLES),
}
_TABLE_PREFIXES: tuple[tuple[str, str], ...] = (("pg_stat_progress_", _SESSIONS),)
# information_schema views about roles, grants and foreign servers (its tables/columns views are schema).
_INFORMATION_SCHEMA_ROLES = ("role", "privilege", "grant", "user_mapping", "foreign_server", "authoriz")
# fmt: on

# current_setting() of these only shapes how values print; every other setting is server configuration.
SAFE_SETTINGS = frozenset({
    "timezone", "datestyle", "intervalstyle", "client_encoding", "server_encoding", "lc_monetary",
    "lc_numeric", "lc_time", "extra_float_digits", "standard_conforming_strings",
})  # fmt: skip


def server_read_function(name: str) -> ServerRead | None:
    lowered = name.lower()
    kind = _FUNCTIONS.get(lowered) or next((k for p, k in _FUNCTION_PREFIXES if lowered.startswith(p)), None)
    if kind is None and lowered.startswith(("pragma_", "pg_")):
        kind = _TABLES.get(lowered)  # a catalog called as a table-valued function: pragma_database_list()
    return ServerRead(kind, lowered) if kind else None


def server_read_table(name: str, schema: str = "") -> ServerRead | None:
    lowered = name.lower()
    if schema.lower() == "information_schema" and any(w in lowered for w in _INFORMATION_SCHEMA_ROLES):
        return ServerRead(_ROLES, f"information_schema.{lowered}")
    kind = _TABLES.get(lowered) or next((k for p, k in _TABLE_PREFIXES if lowered.startswith(p)), None)
    return ServerRead(kind, lowered) if kind else None


def is_denied_function(name: str) -> bool:
    """Whether a function (bare name, any case) is on the deny list; shared with the SQLite authorizer.

    Server-disclosing functions (``sqlite_version``, ...) count too, so the executor refuses them
    even if a query reached it without the guard.
    """
    lowered = name.lower()
    return lowered in DENIED_FUNCTIONS or lowered.startswith(DENIED_PREFIXES) or (
        server_read_function(lowered) is not None)
