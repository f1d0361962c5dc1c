"""Running the app for a class; ``python -m deploy.run_cluster`` from the repository root."""
