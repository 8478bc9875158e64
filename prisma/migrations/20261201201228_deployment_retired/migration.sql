-- A retired product taken off a promoted environment (issue 13).
ALTER TYPE "DeploymentStatus" ADD VALUE 'RETIRED';
