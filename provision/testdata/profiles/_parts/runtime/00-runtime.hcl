# runtime: a part (a folder of profile files every profile beside it may
# use with profile.uses). Its platform blocks add keys to the profile's own;
# its files run in file-name order with the profile's; file paths in it are
# looked up in the profile's folder first, then here.

platform "debian-12" {
  packages = { python = "python3" }
  values   = { python = "/usr/bin/python3" }
}

platform "almalinux-9" {
  packages = { python = "python3" }
  values   = { python = "/usr/bin/python3" }
}

# A platform no profile lists is ignored.
platform "debian-13" {
  packages = { python = "python3" }
  values   = { python = "/usr/bin/python3" }
}

# Already installed on every host of this kind: Check reads the package
# database and finds nothing to do.
package "python" {
  names = [platform.packages.python]
}

fact "python" {
  run = "${local.python} --version"
}

site {
  docroot = "${var.root}/www"
  owner   = "root"
  group   = "root"
  php     = "/usr/bin/php"
  rewrite = "server"
}

process_group "server" {
  exe   = ["python3"]
  users = ["root"]
}
