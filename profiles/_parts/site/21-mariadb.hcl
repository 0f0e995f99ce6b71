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
  # The site's user gets ALL on this database and is a MariaDB user of this
  # name: MariaDB's own (root, the grant tables) would hand the site, whose
  # password any PHP of the site reads, the whole server.
  validation {
    condition     = !contains(["root", "mysql", "information_schema", "performance_schema", "sys", "mariadb"], var.db_name)
    error_message = "db_name must not be one of MariaDB's own databases or users (root, mysql, information_schema, performance_schema, sys, mariadb): the site's user gets every privilege on it."
  }
}

platform "debian-12" {
  packages = {
    mariadb = "mariadb-server"
  }
  paths = {
    mariadb_conf     = "/etc/mysql/mariadb.conf.d/99-wptest.cnf"
    mariadb_conf_dir = "/etc/mysql/mariadb.conf.d"
  }
  services = {
    mariadb = "mariadb"
  }
}

platform "debian-13" {
  packages = {
    mariadb = "mariadb-server"
  }
  paths = {
    mariadb_conf     = "/etc/mysql/mariadb.conf.d/99-wptest.cnf"
    mariadb_conf_dir = "/etc/mysql/mariadb.conf.d"
  }
  services = {
    mariadb = "mariadb"
  }
}

platform "almalinux-9" {
  packages = {
    mariadb = "mariadb-server"
  }
  paths = {
    mariadb_conf     = "/etc/my.cnf.d/99-wptest.cnf"
    mariadb_conf_dir = "/etc/my.cnf.d"
  }
  services = {
    mariadb = "mariadb"
  }
}

package "mariadb" {
  names = [platform.packages.mariadb]
}

# The site's database answers this host only, on every platform: RHEL's
# MariaDB listens on every interface unless told (Debian's own config says
# 127.0.0.1 too), and a benchmark server has nothing open to strangers.
# DB_HOST is 127.0.0.1 (TCP: PHP-FPM under SELinux connects so).
# MariaDB's configuration directory: a hand edit there (a buffer pool, a
# query cache) is drift.
watch "MariaDB" {
  paths = [platform.paths.mariadb_conf_dir]
}

file "mariadb_conf" {
  path    = platform.paths.mariadb_conf
  content = "# Written by wptest: the site's database on this host only.\n[mysqld]\nbind-address = 127.0.0.1\n"
}

service "mariadb" {
  name       = platform.services.mariadb
  state      = "running"
  enabled    = true
  on_notify  = "restart"
  restart_on = ["package.mariadb", "file.mariadb_conf"]
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
# again when that user cannot log in or db_name names another database.
# The check's password reaches mariadb in an option file on a pipe
# (printf is the shell's own): not in its argv, which ps shows every user,
# nor in its environment (MYSQL_PWD), which its children inherit.
command "site_database" {
  unless = ". ${local.db_env} 2>/dev/null && [ \"$DB_NAME\" = ${var.db_name} ] && printf '[client]\\npassword=%s\\n' \"$DB_PASSWORD\" | mariadb --defaults-extra-file=/dev/stdin --connect-timeout=5 -h 127.0.0.1 -u \"$DB_USER\" -e 'SELECT 1' \"$DB_NAME\" >/dev/null 2>&1"
  run    = "${local.lib_dir}/wptest-site-db ${local.db_env} ${var.db_name}"
}

process_group "db" {
  exe = ["mariadbd", "mysqld"]
}

# MariaDB listens on loopback only: its own setting, and the sockets it has.
check "mariadb_loopback_only" {
  command {
    run          = "echo \"bind_address=$(mariadb -N -B -e 'SELECT @@bind_address') listening=$(ss -Hltn | awk '$4 ~ /:3306$/ { print $4 }' | sort -u | paste -sd, -)\""
    expect_regex = "(?m)^bind_address=127\\.0\\.0\\.1 listening=127\\.0\\.0\\.1:3306$"
  }
}
