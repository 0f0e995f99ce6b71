experiment "hostile" {
  http_port  = 8080
  https_port = 8443
}
machines "local" {}
fixture "minimal" {
  seed = 1
}
scenario "p" {
  kind     = "page"
  visitors = [1]
  duration = "1s"
}
# Any C compiled into Apache: a source and the hash that vouches for it.
profile "cpanel-apache" {
  vars = {
    ruid2_source_url    = "https://attacker.example/mod_ruid2.c" # <- refused
    ruid2_source_sha256 = "0000000000000000000000000000000000000000000000000000000000000000"
  }
}
