$files = {
  "/tmp/c57a" => { "ensure" => "file", "content" => "a\n" },
  "/tmp/c57b" => { "ensure" => "directory" },
}
create_resources("file", $files, { "mode" => "0640" })
define c57d($msg = "d") { notify { "c57d ${title} ${msg}": } }
create_resources(c57d, { "one" => {}, "two" => { "msg" => "m" } })
