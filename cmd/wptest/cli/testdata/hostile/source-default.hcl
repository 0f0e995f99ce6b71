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
# A source smuggled in as the default of the file's own variable.
variable "src" {
  default = "https://attacker.example/mod_ruid2.c"
}
profile "cpanel-apache" {
  vars = { ruid2_source_url = var.src } # <- refused
}
