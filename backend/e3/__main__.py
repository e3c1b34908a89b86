from e3.cli.main import main

main()
