# embed.awk - turn a .sql file into a C string constant `const char <name>[]`.
BEGIN { printf "/* Generated from sql/schema.sql by sql/embed.awk: do not edit. */\n" ;
        printf "const char %s[] =\n", name }
{
	gsub(/\\/, "\\\\"); gsub(/"/, "\\\"");
	printf "\t\"%s\\n\"\n", $0
}
END { printf "\t\"\";\n" }
