# The site's database server. Installed and started by the profile, with or
# without systemd (a package install on a host without an init system does
# not start it), and its socket ready before the site database is made.

variable "db_name" {
  type        = string
  default     = "wptest_site"
  description = "The site's database (and its user's name)."
  validation {
    condition     = can(regex("^[a-z0-9_]{1,32}$", var.db_name))
    error_message = "db_name must be 1 to 32 of a-z, 0-9 and _."
  }
}

platform "debian-12" {
  packages = {
    mariadb = "mariadb-server"
  }
  services = {
    mariadb = "mariadb"
  }
}

platform "almalinux-9" {
  packages = {
    mariadb = "mariadb-server"
  }
  services = {
    mariadb = "mariadb"
  }
}

package "mariadb" {
  names = [platform.packages.mariadb]
}

service "mariadb" {
  name       = platform.services.mariadb
  state      = "running"
  enabled    = true
  on_notify  = "restart"
  restart_on = ["package.mariadb"]
  start      = "${local.svc} ${platform.services.mariadb} start"
  stop       = "${local.svc} ${platform.services.mariadb} stop"
  restart    = "${local.svc} ${platform.services.mariadb} restart"
  status     = "${local.svc} ${platform.services.mariadb} status"
  ready      = "mariadb-admin --connect-timeout=2 ping"
}

file "site_db_script" {
  path   = "${local.lib_dir}/wptest-site-db"
  source = "templates/shared/wptest-site-db"
  mode   = "0755"
}

# The site's database and its user, with a password made on the host and
# kept there (local.db_env, root only): it is in no plan, log or argv. Runs
# again only when that user cannot log in.
command "site_database" {
  unless = ". ${local.db_env} 2>/dev/null && MYSQL_PWD=\"$DB_PASSWORD\" mariadb --connect-timeout=5 -h 127.0.0.1 -u \"$DB_USER\" -e 'SELECT 1' \"$DB_NAME\" >/dev/null 2>&1"
  run    = "${local.lib_dir}/wptest-site-db ${local.db_env} ${var.db_name}"
}

process_group "db" {
  exe = ["mariadbd", "mysqld"]
}
